// A crowd of unfinished uploads holds the local server's memory while it lasts (bounded by the front's
// deadlines); once it has gone, the memory must go back to the system, or every crowd raises the floor.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startFunctions } from '../../scripts/lib/stack.mjs';
import { dbUrl, tokens } from '../support/client.ts';

const HELD = 5_000;
let functions: Awaited<ReturnType<typeof startFunctions>>;

beforeAll(async () => {
  functions = await startFunctions({
    dbUrl,
    port: await freePort(),
    env: { HTTP_HEADER_TIMEOUT: '2', HTTP_REQUEST_TIMEOUT: '2' },
  });
});
afterAll(() => functions?.stop());

const residentMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${functions.pid}/status`, 'utf8'))![1]) / 1024;

/** A signed-in delivery whose body never finishes: a byte more every half second until the server closes it. */
function heldUpload(url: URL): Promise<void> {
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  socket.on('error', () => {});
  socket.write(
    `POST /functions/v1/stock-in HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${tokens.admin}\r\n` +
      `content-type: application/json\r\ncontent-length: 100000\r\n\r\n{"product_id":"`,
  );
  const drip = setInterval(() => socket.write('a'), 500);
  return new Promise((resolve) => socket.once('close', () => (clearInterval(drip), resolve())));
}

describe('the local server after a crowd of held uploads', () => {
  it(`gives the memory of ${HELD.toLocaleString('en')} held uploads back once their connections end: within 100 MB of where it started`, async () => {
    const url = new URL(functions.url);
    // Warmed up first, as a server that has served is: the start is measured after one answered delivery.
    expect((await fetch(`${functions.url}/functions/v1/campaign-types`, { headers: { authorization: `Bearer ${tokens.admin}` } })).status).toBe(200);
    const start = residentMb();
    const held = Array.from({ length: HELD }, () => heldUpload(url));
    await Promise.all(held);
    const whileHeld = residentMb();
    let after = residentMb();
    for (let waited = 0; waited < 10_000 && after - start >= 100; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = residentMb();
    }
    console.info(`memory: ${start.toFixed(0)} MB at start, ${whileHeld.toFixed(0)} MB as ${HELD} held uploads closed, ${after.toFixed(0)} MB after`);
    expect(after - start).toBeLessThan(100);
    // A body cut off by its connection's end is the client's doing: no 500 and nothing logged as unexpected.
    expect(functions.output()).not.toMatch(/unexpected error/i);
  }, 60_000);
});
