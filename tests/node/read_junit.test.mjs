// readJunit(text, { coverageXml }): the command's JUnit / Cobertura reader, over the report
// vectors every suite shares (tests/vectors/junit/junit.json); in earlyexit-wasm it runs in
// the replay module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ee, { IMPL, ROOT } from './impl.mjs';

const DIR = path.join(ROOT, 'tests', 'vectors', 'junit');
const { cases } = JSON.parse(readFileSync(path.join(DIR, 'junit.json'), 'utf8'));
// How this API spells the argument a vector's error is about.
const FIELD = { report: 'text', coverage: 'coverageXml' };

for (const c of cases) {
  // A JS string is text already: a report that is not UTF-8 cannot be given as one.
  if (c.report === 'latin1.xml') continue;
  test(`readJunit (${IMPL}): ${c.id}`, () => {
    const text = readFileSync(path.join(DIR, c.report), 'utf8');
    const options = c.coverageXml ? { coverageXml: readFileSync(path.join(DIR, c.coverageXml), 'utf8') } : undefined;
    if (c.error) {
      assert.throws(() => ee.readJunit(text, options), (e) => e.code === c.error.code && e.field === FIELD[c.error.on]);
      return;
    }
    assert.deepEqual(ee.readJunit(text, options), c.returns);
  });
}

test(`readJunit (${IMPL}): bad arguments are typed errors naming them`, () => {
  assert.throws(() => ee.readJunit(42), (e) => e instanceof TypeError && e.code === 'invalid_layer_result' && e.field === 'text');
  const xml = readFileSync(path.join(DIR, 'pytest.xml'), 'utf8');
  assert.throws(() => ee.readJunit(xml, { coverageXml: 0.5 }), (e) => e instanceof TypeError && e.field === 'coverageXml');
  assert.throws(() => ee.readJunit(xml, { coverage_xml: '' }), (e) => e.code === 'unknown_option' && e.field === 'coverage_xml');
  assert.throws(() => ee.readJunit(xml, 'cobertura'), (e) => e.code === 'invalid_config' && e.field === 'options');
  // The result goes straight into a run.
  const run = ee.PyramidRun.start(null, 1, [{ name: 'unit' }]);
  run.submit(0, ee.readJunit(xml));
  assert.equal(run.result().verdict, 'failed');
});
