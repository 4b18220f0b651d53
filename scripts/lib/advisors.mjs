// Supabase's database advisors (the security and performance lints the dashboard shows), run by the
// official CLI against any database URL.
import { supabaseCli } from './stack.mjs';

// `unused_index` measures traffic, not schema: on a fresh database every index is unused, and on a
// busy one the answer depends on the workload. Everything else is a finding.
const TRAFFIC_DEPENDENT = new Set(['unused_index']);

export async function advisorFindings(url) {
  const output = await supabaseCli(['db', 'advisors', `--remote=${url}`, '--type', 'all', '--level', 'info', '-o', 'json'], {
    stderr: false,
  });
  const findings = JSON.parse(output.slice(output.indexOf('[')));
  return findings.filter((finding) => !TRAFFIC_DEPENDENT.has(finding.name));
}

export function describeFinding(finding) {
  return `${finding.level} ${finding.name}: ${finding.detail}\n  ${finding.remediation}`;
}
