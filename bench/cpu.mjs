// CPU time of a process tree from /proc, for CPU milliseconds per request: the process and its live
// descendants (utime + stime), plus what its exited children used (cutime + cstime, added to a parent
// when it reaps them: PostgreSQL backends that came and went are counted by the postmaster).
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

function stat(pid) {
  try {
    // The command name may hold spaces; the fields after it are space-separated.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return {
      ppid: Number(fields[1]),
      self: Number(fields[11]) + Number(fields[12]),
      reaped: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return undefined; // gone between the listing and the read
  }
}

/** Milliseconds of CPU used so far by `root` and its descendants, on Linux; undefined elsewhere. */
export function treeCpuMs(root) {
  if (!root) return undefined;
  let pids;
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return undefined;
  }
  const stats = new Map(pids.map((pid) => [pid, stat(pid)]).filter(([, s]) => s));
  const children = new Map();
  for (const [pid, s] of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  let ticks = 0;
  const pending = [root];
  while (pending.length) {
    const pid = pending.pop();
    const s = stats.get(pid);
    if (!s) continue;
    ticks += s.self + s.reaped;
    pending.push(...(children.get(pid) ?? []));
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}
