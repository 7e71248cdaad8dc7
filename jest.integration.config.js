/**
 * `npm run test:integration`: what needs more of the world than one PostgreSQL (Redis, two
 * instances, an S3 server). Expects them running (see .ci/run) and fails loudly without them.
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testRegex: ['test/integration/.*\\.int-spec\\.ts$'],
  testTimeout: 60000,
};
