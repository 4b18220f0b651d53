// The demo store's customer names, as a Taiwanese store's list reads: a surname drawn as often as Taiwan's
// people bear it, then a given name of two characters. seed:demo writes them (`pg_temp.demo_name`) and the
// bench searches them (`bench/scenarios.mjs`), both from the tables and the draw below.
import { createHash } from 'node:crypto';

/**
 * The 25 most common surnames in Taiwan with their share in per mille (the Ministry of the Interior's 2018
 * count: 陳 11.1 %, 林 8.3 %, … together 73.8 %); the rest of the thousand is shared evenly by 20 rarer ones.
 */
const COMMON_SURNAMES = [
  ['陳', 111], ['林', 83], ['黃', 60], ['張', 53], ['李', 51], ['王', 41], ['吳', 40], ['劉', 32], ['蔡', 29],
  ['楊', 26], ['許', 23], ['鄭', 19], ['謝', 18], ['郭', 17], ['洪', 16], ['曾', 14], ['邱', 14], ['廖', 14],
  ['賴', 13], ['周', 12], ['徐', 11], ['蘇', 11], ['葉', 10], ['莊', 10], ['呂', 10],
];
const RARER_SURNAMES = ['江', '何', '蕭', '羅', '高', '潘', '簡', '朱', '鍾', '游', '彭', '詹', '胡', '施', '沈', '余', '盧', '梁', '趙', '顏'];

/** Each surname with the per mille below which a draw picks it (the shares added up), in order. */
export const SURNAMES = (() => {
  let upTo = 0;
  const common = COMMON_SURNAMES.map(([surname, share]) => [surname, (upTo += share)]);
  const rarer = (1000 - upTo) / RARER_SURNAMES.length;
  return [...common, ...RARER_SURNAMES.map((surname, i) => [surname, i === RARER_SURNAMES.length - 1 ? 1000 : upTo + rarer * (i + 1)])];
})();

/** Characters of given names; none is a surname above, so a search for a surname finds its holders only. */
export const GIVEN_NAME_CHARACTERS = [...'怡君雅婷家豪志明俊宏淑芬美玲建文冠宇佳穎承翰欣妤柏翔宗憲心瑜詩涵品睿凱偉慧萱子晴'];

/** seed:demo's draw: a number in [0, 1) from the seed, the row and a purpose (`pg_temp.demo_random`). */
export function demoRandom(seed, n, salt) {
  return parseInt(createHash('md5').update(`${seed}:${n}:${salt}`).digest('hex').slice(0, 8), 16) / 4294967296;
}

/** The name seed:demo gives its n-th customer of `seed`, as `pg_temp.demo_name` draws it. */
export function demoCustomerName(seed, n) {
  const draw = 1000 * demoRandom(seed, n, 'surname');
  const [surname] = SURNAMES.find(([, upTo]) => upTo > draw);
  const given = (salt) => GIVEN_NAME_CHARACTERS[Math.floor(demoRandom(seed, n, salt) * GIVEN_NAME_CHARACTERS.length)];
  return surname + given('given1') + given('given2');
}
