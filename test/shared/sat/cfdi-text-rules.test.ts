import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { buildCfdiTextRules, TEXT_RULES_FILE } from '../../../scripts/build-cfdi-text-rules.js';
import { CFDI_TEXT, cfdiTextProblem, collapseWhitespace } from '../../../shared/sat/cfdi-text-rules.js';

describe("CFDI text rules, read from SAT's XSD", () => {
  it('data/sat/cfdi-text-rules.json is what `npm run build:text-rules` builds from the shipped cfdv40.xsd', () => {
    expect(JSON.parse(readFileSync(TEXT_RULES_FILE, 'utf8'))).to.deep.equal(JSON.parse(JSON.stringify(buildCfdiTextRules())));
  });

  it("names every attribute the service writes from outside values, with SAT's facets", () => {
    const rules = buildCfdiTextRules();
    for (const path of Object.values(CFDI_TEXT)) expect(rules, path).to.have.property(path);
    expect(rules[CFDI_TEXT.conceptDescription]).to.deep.equal({ minLength: 1, maxLength: 1000, pattern: '[^|]{1,1000}', collapse: true });
  });

  it('checks the value SAT checks: whitespace collapsed, lengths in characters, "|" refused', () => {
    expect(collapseWhitespace(' a \t b\n ')).to.equal('a b');
    expect(cfdiTextProblem(CFDI_TEXT.series, 'A-1 ñ')).to.equal(undefined);
    expect(cfdiTextProblem(CFDI_TEXT.series, `${'Ñ'.repeat(25)}`)).to.equal(undefined);
    expect(cfdiTextProblem(CFDI_TEXT.series, `${'Ñ'.repeat(26)}`)).to.contain('at most 25');
    expect(cfdiTextProblem(CFDI_TEXT.conceptSku, 'A|B')).to.contain('"|"');
    expect(cfdiTextProblem(CFDI_TEXT.receptorName, '   ')).to.contain('other than spaces');
  });
});
