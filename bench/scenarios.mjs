// The HTTP side of each scenario: what autocannon sends. The database side, for the ceiling, is the
// entry of the same name in bench/db-work.ts.
// `caller` picks the token: `admin` (a signed-in administrator) or `service` (the service key, which the
// health report never rate-limits).
const health = (period) => ({
  name: `business health ${period}`,
  kind: 'read',
  caller: 'service',
  request: () => ({ method: 'POST', path: '/functions/v1/business-health-analytics', body: { period } }),
});

export const scenarios = [
  {
    name: 'campaign-types list',
    kind: 'read',
    caller: 'admin',
    request: () => ({ method: 'GET', path: '/functions/v1/campaign-types' }),
  },
  health('7d'),
  health('30d'),
  health('90d'),
];
