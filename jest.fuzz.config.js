/**
 * `npm run test:fuzz`: the fuzz test with its large budget (FUZZ_SECONDS, 300 by default, and a new
 * seed each run), reporting every class of failure it finds. test/fuzz/fuzz-runner.ts lists the
 * variables that tune it; FUZZ_SEED and FUZZ_PATH replay a reported request.
 */
const base = require('./jest.config');

process.env.FUZZ_BUDGET ??= 'large';

module.exports = {
  ...base,
  testRegex: ['test/fuzz/.*\\.fuzz-spec\\.ts$'],
};
