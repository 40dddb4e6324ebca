// node:test reporter that counts leaf tests (suites excluded) and writes one
// JSON line {passed, failed, skipped}; scripts/test.mjs sums it with the other checks.
export default async function* countReporter(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    if (event.data.details?.type === "suite") continue;
    if (event.data.skip || event.data.todo) skipped += 1;
    else if (event.type === "test:pass") passed += 1;
    else failed += 1;
  }
  yield `${JSON.stringify({ passed, failed, skipped })}\n`;
}
