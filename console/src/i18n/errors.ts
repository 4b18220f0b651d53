import type { ErrorCode } from '../../../supabase/functions/_shared/enums.ts';
import type { Locale } from './index.ts';

type Figures = Record<string, unknown>;
const n = (value: unknown) => Number(value).toLocaleString('en');

/**
 * Every code of the API's catalogue (`supabase/functions/_shared/enums.ts`) in both languages, typed by
 * it: a code added there without its words here does not build. The words say what happened and what to
 * do, from the refusal's details where it has them (how many units are free). The failures the console
 * words by their status first (401, 429, 503, 5xx: `inWords` in api/client.ts) have words here too, so the
 * catalogue is whole whatever status a code comes with.
 */
type CodeWords = Record<ErrorCode, (details: Figures) => string>;

interface Campaign {
  name: string;
  start_date: string;
  end_date: string;
}

/** The site-wide campaign a refusal clashed with (`conflicts_with`: of the refusal, or of a batch's first failure). */
function clashingCampaign(details: Figures): Campaign | undefined {
  const failures = details.failures as { conflicts_with?: Campaign }[] | undefined;
  return (details.conflicts_with as Campaign | undefined) ?? failures?.[0]?.conflicts_with;
}

export const ERROR_WORDS: Record<Locale, CodeWords> = {
  en: {
    UNAUTHORIZED: () => 'Your session has ended; sign in again.',
    FORBIDDEN: () => 'You do not have permission to do this.',
    INSUFFICIENT_PERMISSION: () => 'You do not have permission to do this.',
    PERMISSION_DENIED: () => 'You do not have permission to do this.',
    RATE_LIMIT_EXCEEDED: () => 'Too many requests; wait a moment and try again.',
    VALIDATION_ERROR: () => 'Something in the form is not valid.',
    INVALID_PARAMETER: () => 'Something in the request is not valid.',
    NOT_FOUND: () => 'Not found.',
    METHOD_NOT_ALLOWED: () => 'This cannot be done here.',
    PAYLOAD_TOO_LARGE: () => 'What was sent is too large.',
    UNSUPPORTED_VERSION: () => 'This version of the console is out of date; reload the page.',
    IDEMPOTENCY_KEY_REUSED: () => 'This booking changed after it was sent; send it again.',
    CAMPAIGN_NOT_FOUND: () => 'This campaign no longer exists.',
    CAMPAIGN_OVERLAP_CONFLICT: (d) => {
      const other = clashingCampaign(d);
      return other
        ? `Only one site-wide campaign can run at a time: “${other.name}” is active from ${other.start_date} to ${other.end_date}.`
        : 'Only one site-wide campaign can run at a time: another one is active on these days.';
    },
    CAMPAIGN_FINAL: () => 'A completed or cancelled campaign can no longer change.',
    INVALID_STATUS_TRANSITION: (d) =>
      d.order_id === undefined
        ? 'The campaign cannot move to that status from its current one.'
        : 'The order cannot move to that status from its current one (it may just have been changed: reload it).',
    INVALID_DATE_RANGE: () => 'The dates are not valid: the end cannot be before the start, and at most 366 days.',
    ATTRIBUTION_WEIGHT_EXCEEDED: () => "The attribution weight is above this campaign type's limit.",
    SPEND_OUTSIDE_CAMPAIGN: () => 'Spend can only be recorded for a scheduled campaign, on a day within its dates.',
    TYPE_NOT_FOUND: () => 'This campaign type does not exist.',
    DUPLICATE_TYPE_CODE: (d) =>
      `Another campaign type already uses ${d.type_code === undefined ? 'this code' : `the code ${d.type_code}`}.`,
    INVALID_WEIGHT_RANGE: () => 'The lowest weight cannot be above the highest.',
    INVALID_ATTRIBUTION_LAYER: () => 'Not one of the attribution layers.',
    PRODUCT_NOT_FOUND: () => 'This product does not exist (it may have been deleted).',
    PRODUCT_INACTIVE: () => 'This product is not active, so stock cannot be booked for it.',
    PRODUCT_HAS_STOCK: () => 'This product still has stock; adjust it to 0 before deleting.',
    PRODUCT_DELETED: () =>
      'This product was deleted, so its goods cannot go back into stock. Refund without restocking.',
    DUPLICATE_SKU: (d) =>
      `Another product already uses ${
        d.sku === undefined ? 'this SKU' : `the SKU ${d.sku}`
      } (deleted products included): SKUs are never reused.`,
    INSUFFICIENT_STOCK: (d) =>
      d.available === undefined
        ? 'Not enough stock for this quantity.'
        : `Not enough stock: ${n(d.available)} free, ${n(d.requested)} asked for.`,
    EXPIRED_STOCK: (d) =>
      d.available === undefined
        ? 'Some of the stock is past its expiry and cannot ship. Receive fresh stock first.'
        : `Only ${n(d.available)} of the ${
          n(d.requested)
        } units can ship: the rest of the stock is past its expiry. Receive fresh stock first.`,
    NO_INVENTORY_RECORD: () => 'This product has no lot to adjust.',
    INVENTORY_RECORD_NOT_FOUND: () => 'This lot does not exist.',
    ORDER_NOT_FOUND: () => 'This order does not exist.',
    CUSTOMER_NOT_FOUND: () => 'This customer does not exist.',
    ORDER_LINES_FIXED: () =>
      'An order’s lines, and the total and item count they make, are fixed once it is placed. Cancel or refund it instead.',
    LOCK_TIMEOUT: () => 'Someone else is changing the same data; try again in a moment.',
    SERVICE_UNAVAILABLE: () => 'The service is unavailable for a moment; try again shortly.',
    CALCULATION_ERROR: () => 'The report could not be calculated; try again shortly.',
    DB_ERROR: () => 'The service failed; try again shortly.',
    INTERNAL_ERROR: () => 'The service failed; try again shortly.',
  },
  'zh-TW': {
    UNAUTHORIZED: () => '登入已結束，請重新登入。',
    FORBIDDEN: () => '你沒有權限執行這個操作。',
    INSUFFICIENT_PERMISSION: () => '你沒有權限執行這個操作。',
    PERMISSION_DENIED: () => '你沒有權限執行這個操作。',
    RATE_LIMIT_EXCEEDED: () => '請求太頻繁，請稍候再試。',
    VALIDATION_ERROR: () => '表單中有內容不正確。',
    INVALID_PARAMETER: () => '請求中有內容不正確。',
    NOT_FOUND: () => '找不到這筆資料。',
    METHOD_NOT_ALLOWED: () => '這裡不能執行這個操作。',
    PAYLOAD_TOO_LARGE: () => '送出的資料太大。',
    UNSUPPORTED_VERSION: () => '主控台版本已過時，請重新整理頁面。',
    IDEMPOTENCY_KEY_REUSED: () => '這筆登記的內容已變更，請重新送出。',
    CAMPAIGN_NOT_FOUND: () => '找不到這個活動（可能已被刪除）。',
    CAMPAIGN_OVERLAP_CONFLICT: (d) => {
      const other = clashingCampaign(d);
      return other
        ? `同一時間只能有一個全站活動：「${other.name}」已在 ${other.start_date} 至 ${other.end_date} 啟用。`
        : '同一時間只能有一個全站活動：這段期間已有另一個全站活動在進行。';
    },
    CAMPAIGN_FINAL: () => '已完成或已取消的活動無法再修改。',
    INVALID_STATUS_TRANSITION: (d) =>
      d.order_id === undefined
        ? '活動目前的狀態不能這樣變更。'
        : '訂單目前的狀態不能這樣變更（可能剛被別人改過，請重新載入）。',
    INVALID_DATE_RANGE: () => '日期範圍不正確：結束日期不能早於開始日期，且最多 366 天。',
    ATTRIBUTION_WEIGHT_EXCEEDED: () => '歸因權重超過這個活動類型允許的上限。',
    SPEND_OUTSIDE_CAMPAIGN: () => '只能為已排定的活動記錄花費，且日期須在活動期間內。',
    TYPE_NOT_FOUND: () => '找不到這個活動類型。',
    DUPLICATE_TYPE_CODE: (d) => `已有活動類型使用${d.type_code === undefined ? '這個代碼' : `代碼 ${d.type_code}`}。`,
    INVALID_WEIGHT_RANGE: () => '最低權重不能高於最高權重。',
    INVALID_ATTRIBUTION_LAYER: () => '不是可選的歸因層級。',
    PRODUCT_NOT_FOUND: () => '找不到這項商品（可能已被刪除）。',
    PRODUCT_INACTIVE: () => '這項商品未上架，無法登記。',
    PRODUCT_HAS_STOCK: () => '這項商品還有庫存，請先調整為 0 再刪除。',
    PRODUCT_DELETED: () => '這項商品已刪除，商品無法退回庫存。請改為不退回庫存的退款。',
    DUPLICATE_SKU: (d) =>
      `已有商品使用${
        d.sku === undefined ? '這個商品編號' : `商品編號 ${d.sku}`
      }（包含已刪除的商品）：商品編號不能重複使用。`,
    INSUFFICIENT_STOCK: (d) =>
      d.available === undefined
        ? '庫存不足，無法扣除這個數量。'
        : `庫存不足：可用 ${n(d.available)} 件，要求 ${n(d.requested)} 件。`,
    EXPIRED_STOCK: (d) =>
      d.available === undefined
        ? '部分庫存已過期，無法出貨，請先進貨新批次。'
        : `${n(d.requested)} 件中只有 ${n(d.available)} 件可出貨：其餘庫存已過期，請先進貨新批次。`,
    NO_INVENTORY_RECORD: () => '這項商品沒有可調整的批次。',
    INVENTORY_RECORD_NOT_FOUND: () => '找不到這個批次。',
    ORDER_NOT_FOUND: () => '找不到這筆訂單。',
    CUSTOMER_NOT_FOUND: () => '找不到這位顧客。',
    ORDER_LINES_FIXED: () => '訂單成立後，品項及其合計金額與件數就不能再變更。請改為取消或退款。',
    LOCK_TIMEOUT: () => '有人正在修改同一筆資料，請稍後再試。',
    SERVICE_UNAVAILABLE: () => '服務暫時無法使用，請稍後再試。',
    CALCULATION_ERROR: () => '報表暫時無法計算，請稍後再試。',
    DB_ERROR: () => '服務發生錯誤，請稍後再試。',
    INTERNAL_ERROR: () => '服務發生錯誤，請稍後再試。',
  },
};

/** A refusal whose code is outside the catalogue (an answer no function gave), in Chinese around its words. */
export const zhRefusal = (message: string) => `無法完成：${message}`;

type RuleWords = Record<string, (p: Figures, field: string) => string>;

/**
 * The rules the API names in `details.rule` (with their figures in `details.params`), in words. The field's
 * own label stands beside the words, so they do not repeat it. A rule not here keeps the API's message.
 */
export const RULES_EN: RuleWords = {
  required: () => 'Required.',
  type: (p) =>
    p.expected === 'int'
      ? 'Must be a whole number.'
      : p.expected === 'number'
      ? 'Must be a number.'
      : 'Not a valid value here.',
  min_length: (p) => Number(p.min) <= 1 ? 'Must not be empty.' : `At least ${n(p.min)} characters.`,
  max_length: (p) => `At most ${n(p.max)} characters.`,
  min: (p) => `At least ${n(p.min)}.`,
  max: (p) => `At most ${n(p.max)}.`,
  min_items: (p) => `At least ${n(p.min)} ${Number(p.min) === 1 ? 'line' : 'lines'}.`,
  max_items: (p) => `At most ${n(p.max)} lines.`,
  between: (p) => `Between ${n(p.min)} and ${n(p.max)}.`,
  format: (p, field) =>
    p.format === 'uuid' || p.format === 'guid'
      ? 'Not a valid ID.'
      : p.format === 'date'
      ? 'Not a valid date.'
      : p.format === 'datetime'
      ? 'Not a valid date and time.'
      : p.format === 'lot_number'
      ? '1 to 64 characters, no control characters.'
      : p.format === 'idempotency_key'
      ? 'This booking could not be identified; send it again.'
      : field === 'sku'
      ? 'Letters, digits, dots, underscores and hyphens only, starting with a letter or digit.'
      : field === 'type_code'
      ? 'Small letters, digits and underscores only, starting with a letter.'
      : 'Not in the expected form.',
  one_of: () => 'Not one of the choices offered.',
  unknown_field: () => 'Not something this form can send.',
  real_date: () => 'Not a real date.',
  year_one: () => 'Must be in year 1 or later.',
  decimals: (p) => `At most ${n(p.max)} decimal places.`,
  not_empty: () => 'Change at least one field.',
  not_zero: () => 'Must not be 0.',
  after: () => 'Must be later than the start.',
  on_or_after: () => 'Must not be before the start.',
  max_days: (p) => `At most ${n(p.max)} days.`,
  not_future: (p) => `Cannot be more than ${n(p.minutes)} minutes from now.`,
  not_before_received: () => 'Cannot be before the day the goods were received.',
  reason_direction: (p) =>
    p.direction === 'decrease'
      ? 'This reason is for taking stock away; the change adds stock.'
      : 'This reason is for adding stock; the change takes stock away.',
  exactly_one: () => 'Choose the whole product or one lot.',
  requires: () => 'Choose what to sort by first.',
  read_only: () => 'Cannot be changed.',
  storable_text: () => 'Contains characters that cannot be stored.',
  storable_value: () => 'A value cannot be stored.',
  json: () => 'The request could not be read.',
  json_content_type: () => 'The request could not be read.',
  percent_encoding: () => 'The address could not be read.',
};

export const RULES_ZH: RuleWords = {
  required: () => '必填。',
  type: (p) => p.expected === 'int' ? '必須是整數。' : p.expected === 'number' ? '必須是數字。' : '這裡不接受這個值。',
  min_length: (p) => Number(p.min) <= 1 ? '不能空白。' : `至少 ${n(p.min)} 個字元。`,
  max_length: (p) => `最多 ${n(p.max)} 個字元。`,
  min: (p) => `不能小於 ${n(p.min)}。`,
  max: (p) => `不能大於 ${n(p.max)}。`,
  min_items: (p) => `至少 ${n(p.min)} 行。`,
  max_items: (p) => `最多 ${n(p.max)} 行。`,
  between: (p) => `必須介於 ${n(p.min)} 與 ${n(p.max)} 之間。`,
  format: (p, field) =>
    p.format === 'uuid' || p.format === 'guid'
      ? '不是有效的 ID。'
      : p.format === 'date'
      ? '不是有效的日期。'
      : p.format === 'datetime'
      ? '不是有效的日期時間。'
      : p.format === 'lot_number'
      ? '1 到 64 個字元，不能含控制字元。'
      : p.format === 'idempotency_key'
      ? '無法辨識這筆登記，請重新送出。'
      : field === 'sku'
      ? '只能用英文字母、數字、點、底線與連字號，並以字母或數字開頭。'
      : field === 'type_code'
      ? '只能用小寫英文字母、數字與底線，並以字母開頭。'
      : '格式不正確。',
  one_of: () => '不是可選的項目。',
  unknown_field: () => '這個表單不能送出這一項。',
  real_date: () => '不是存在的日期。',
  year_one: () => '年份必須是西元 1 年以後。',
  decimals: (p) => `最多 ${n(p.max)} 位小數。`,
  not_empty: () => '請至少修改一個欄位。',
  not_zero: () => '不能是 0。',
  after: () => '必須晚於開始時間。',
  on_or_after: () => '不能早於開始日期。',
  max_days: (p) => `最多 ${n(p.max)} 天。`,
  not_future: (p) => `不能晚於現在起 ${n(p.minutes)} 分鐘。`,
  not_before_received: () => '不能早於入庫當天。',
  reason_direction: (p) =>
    p.direction === 'decrease' ? '這個原因用於減少庫存，但這次是增加。' : '這個原因用於增加庫存，但這次是減少。',
  exactly_one: () => '請選擇整個商品或其中一個批次。',
  requires: () => '請先選擇排序欄位。',
  read_only: () => '不能修改。',
  storable_text: () => '含有無法儲存的字元。',
  storable_value: () => '有一個值無法儲存。',
  json: () => '無法讀取這個請求。',
  json_content_type: () => '無法讀取這個請求。',
  percent_encoding: () => '無法讀取這個網址。',
};
