/**
 * The suite's one-time setup: the stack (`stack.ts`) and the console's build (`console-build.ts`) side
 * by side, as neither needs the other and vitest would run two global setups one after the other. A
 * failure of either stops the stack that did start.
 */
import type { TestProject } from 'vitest/node';
import buildConsole from './console-build.ts';
import startStack from './stack.ts';

export default async function setup(project: TestProject) {
  const [stack, build] = await Promise.allSettled([startStack(project), buildConsole()]);
  if (stack.status === 'fulfilled' && build.status === 'fulfilled') return stack.value;
  if (stack.status === 'fulfilled') await stack.value();
  throw stack.status === 'rejected' ? stack.reason : (build as PromiseRejectedResult).reason;
}
