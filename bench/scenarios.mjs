// The HTTP side of each scenario: what autocannon sends. The database side, for the ceiling, is the
// entry of the same name in bench/db-work.ts.
export const scenarios = [
  {
    name: 'campaign-types list',
    kind: 'read',
    request: () => ({ method: 'GET', path: '/functions/v1/campaign-types' }),
  },
];
