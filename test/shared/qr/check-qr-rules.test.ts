import { expect } from 'chai';
import { checkQrRules } from '../../../shared/qr/check-qr-rules.js';
import type { QrCreateRequest, QrConceptInput } from '../../../shared/qr/qr-request.js';
import { satCatalogs } from '../../../shared/sat/catalogs.js';
import { sampleSale } from '../../fixtures/sample-sale.js';

const ctx = { catalogs: satCatalogs(), onDate: '2026-11-23' };

function sale(change: (s: QrCreateRequest) => void = () => {}): QrCreateRequest {
  const s = sampleSale('store-1', new Date('2026-11-30T00:00:00Z'));
  change(s);
  return s;
}

function found(request: QrCreateRequest): string[] {
  return checkQrRules(request, ctx).map((d) => `${d.field}:${d.code}`);
}

/** 1,000.00 of professional services from a RESICO issuer: IVA 160.00, ISR withheld 12.50, IVA withheld 106.67. */
function withholdingSale(): QrCreateRequest {
  const concept: QrConceptInput = {
    description: 'Consultoría',
    amount: 1000,
    quantity: 1,
    unit_price: 1000,
    sat_unit_key: 'E48',
    sat_product_service_key: '80111600',
    sat_tax_object_key: '02',
    taxes: [
      { type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 1000, amount: 160 },
      { type: 'Retencion', tax: '001', factor: 'Tasa', rate: '0.012500', taxable_base: 1000, amount: 12.5 },
      { type: 'Retencion', tax: '002', factor: 'Tasa', rate: '0.106667', taxable_base: 1000, amount: 106.67 },
    ],
  };
  return sale((s) => {
    s.operation_data = [concept];
    s.subtotal = 1000;
    s.amount = 1040.83;
  });
}

describe('SAT rules on a QR request', () => {
  it('accept a consistent sale, with transfers, withholdings and exempt items', () => {
    expect(found(sale())).to.deep.equal([]);
    expect(found(withholdingSale())).to.deep.equal([]);
    expect(
      found(
        sale((s) => {
          s.operation_data[2]!.sat_tax_object_key = '02';
          s.operation_data[2]!.taxes = [{ type: 'Traslado', tax: '002', factor: 'Exento', taxable_base: 10 }];
        }),
      ),
    ).to.deep.equal([]);
  });

  describe('arithmetic, with the tolerances of Anexo 20', () => {
    it('concept amount is unit_price × quantity, to the cent SAT rounds to', () => {
      // 10 × 21.5: SAT's limits at two decimals are 214.99 to 215.01.
      expect(
        found(
          sale((s) => {
            s.operation_data[0]!.amount = 215.01;
          }),
        ),
      ).to.not.include('operation_data[0].amount:concept_amount_mismatch');
      expect(
        found(
          sale((s) => {
            s.operation_data[0]!.amount = 215.02;
          }),
        ),
      ).to.include('operation_data[0].amount:concept_amount_mismatch');
      expect(
        found(
          sale((s) => {
            s.operation_data[0]!.amount = 216;
          }),
        ),
      ).to.include('operation_data[0].amount:concept_amount_mismatch');
    });

    it('tax amount is taxable_base × rate', () => {
      expect(
        found(
          sale((s) => {
            s.operation_data[0]!.taxes![0]!.amount = 34.42;
            s.amount = 302.34;
          }),
        ),
      ).to.deep.equal(['operation_data[0].taxes[0].amount:tax_amount_mismatch']);
      expect(found(withholdingSale())).to.deep.equal([]);
      expect(
        found(
          (() => {
            const s = withholdingSale();
            s.operation_data[0]!.taxes![2]!.amount = 106.66;
            s.amount = 1040.84;
            return s;
          })(),
        ),
      ).to.deep.equal([]);
      expect(
        found(
          (() => {
            const s = withholdingSale();
            s.operation_data[0]!.taxes![2]!.amount = 106.5;
            s.amount = 1041;
            return s;
          })(),
        ),
      ).to.deep.equal(['operation_data[0].taxes[2].amount:tax_amount_mismatch']);
    });

    it('subtotal and total are what the concepts and grouped taxes add up to, at the currency decimals', () => {
      expect(
        found(
          sale((s) => {
            s.subtotal = 262.01;
          }),
        ),
      ).to.deep.equal(['subtotal:subtotal_mismatch']);
      expect(
        found(
          sale((s) => {
            s.amount = 302.33;
          }),
        ),
      ).to.deep.equal(['amount:total_mismatch']);
      expect(
        found(
          sale((s) => {
            s.amount = 302.321;
          }),
        ),
      ).to.deep.equal(['amount:total_mismatch']);
      expect(
        checkQrRules(
          sale((s) => {
            s.amount = 302.321;
          }),
          ctx,
        )[0],
      ).to.include({ field: 'amount', expected: '302.32' });
      expect(
        found(
          sale((s) => {
            s.amount = 302.32;
            s.subtotal = 262.0;
          }),
        ),
      ).to.deep.equal([]);
      expect(
        found(
          (() => {
            const s = withholdingSale();
            s.amount = 1160;
            return s;
          })(),
        ),
      ).to.deep.equal(['amount:total_mismatch']);
    });

    it('discounts reduce the total and never exceed the concept amount', () => {
      expect(
        found(
          sale((s) => {
            s.operation_data[2]!.discount = 2;
            s.amount = 300.32;
          }),
        ),
      ).to.deep.equal([]);
      expect(
        found(
          sale((s) => {
            s.operation_data[2]!.discount = 11;
            s.amount = 291.32;
          }),
        ),
      ).to.deep.equal(['operation_data[2].discount:discount_exceeds_amount']);
    });

    it('uses the decimals of the currency: none for JPY', () => {
      const yen = sale((s) => {
        s.currency = 'JPY';
        s.exchange_rate = 0.12;
        s.operation_data = [s.operation_data[2]!];
        s.operation_data[0]!.unit_price = 10.5;
        s.operation_data[0]!.amount = 10.5;
        s.subtotal = 10.5;
        s.amount = 10.5;
      });
      // The invoice says SubTotal 11 and Total 11 (no decimals); 10.5 is the exact sum the POS sent.
      expect(found(yen)).to.deep.equal([]);
      expect(
        found(
          sale((s) => {
            s.currency = 'JPY';
            s.exchange_rate = 0.12;
            s.operation_data = [s.operation_data[2]!];
            s.operation_data[0]!.unit_price = 10.5;
            s.operation_data[0]!.amount = 10.5;
            s.subtotal = 10.4;
            s.amount = 10.5;
          }),
        ),
      ).to.deep.equal(['subtotal:subtotal_mismatch']);
    });

    it("accepts the contract's six decimals: a fuel sale of 1.333 L at 14.995", () => {
      const fuel = sale((s) => {
        s.operation_data = [
          {
            description: 'Gasolina regular',
            quantity: 1.333,
            unit_price: 14.995,
            amount: 19.988335,
            sat_unit_key: 'LTR',
            sat_product_service_key: '15101514',
            sat_tax_object_key: '02',
            taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 19.988335, amount: 3.198134 }],
          },
        ];
        s.subtotal = 19.988335;
        s.amount = 23.186469;
      });
      expect(found(fuel)).to.deep.equal([]);
      // What the invoice will say is accepted too, and the exact sums at any decimals the POS chose.
      expect(found({ ...fuel, subtotal: 19.99, amount: 23.19 })).to.deep.equal([]);
      expect(found({ ...fuel, subtotal: 19.9883, amount: 23.1865 })).to.deep.equal([]);
      expect(found({ ...fuel, amount: 23.18 })).to.deep.equal(['amount:total_mismatch']);
      expect(found({ ...fuel, amount: 23.1864 })).to.deep.equal(['amount:total_mismatch']);
    });

    it("refuses a tax whose bases add up to less than half a cent: SAT's XSD wants the summary Base at least 0.000001", () => {
      const tiny = sale((s) => {
        s.operation_data = [
          {
            description: 'Muestra',
            quantity: 0.001,
            unit_price: 1,
            amount: 0.001,
            sat_unit_key: 'H87',
            sat_product_service_key: '50202301',
            sat_tax_object_key: '02',
            taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 0.001, amount: 0.00016 }],
          },
        ];
        s.subtotal = 0.001;
        s.amount = 0.00116;
      });
      expect(found(tiny)).to.deep.equal(['operation_data[0].taxes[0].taxable_base:tax_base_rounds_to_zero']);
    });
  });

  describe('catalogs and combinations', () => {
    it('refuses taxes a direction, factor or rate does not allow', () => {
      const tax = (t: Record<string, unknown>) =>
        sale((s) => {
          Object.assign(s.operation_data[0]!.taxes![0]!, t);
        });
      expect(found(tax({ tax: '001' }))).to.include('operation_data[0].taxes[0].type:tax_type_not_allowed');
      expect(found(tax({ factor: 'Cuota' }))).to.include('operation_data[0].taxes[0].factor:factor_not_allowed');
      expect(found(tax({ rate: '0.150000' }))).to.include('operation_data[0].taxes[0].rate:rate_not_allowed');
      expect(found(tax({ rate: undefined }))).to.include('operation_data[0].taxes[0].rate:rate_required');
      expect(found(tax({ amount: undefined }))).to.include('operation_data[0].taxes[0].amount:tax_amount_required');
      expect(found(tax({ factor: 'Exento' }))).to.include('operation_data[0].taxes[0]:exempt_with_amount');
      expect(found(tax({ type: 'Retencion', factor: 'Exento', rate: undefined, amount: undefined }))).to.include('operation_data[0].taxes[0].factor:factor_not_allowed');
      expect(found(tax({ tax: '004' }))).to.include('operation_data[0].taxes[0].tax:catalog_key_unknown');
    });

    it('matches tax objects and taxes', () => {
      expect(
        found(
          sale((s) => {
            delete s.operation_data[0]!.taxes;
          }),
        ),
      ).to.include('operation_data[0].taxes:taxes_required');
      expect(
        found(
          sale((s) => {
            s.operation_data[0]!.sat_tax_object_key = '03';
          }),
        ),
      ).to.include('operation_data[0].taxes:taxes_not_allowed');
      expect(
        found(
          sale((s) => {
            s.operation_data[0]!.sat_tax_object_key = '06';
          }),
        ),
      ).to.include('operation_data[0].taxes:iva_transfer_not_allowed');
    });

    it('refuses combinations CFDI 4.0 forbids', () => {
      expect(
        found(
          sale((s) => {
            s.sat_payment_method = 'PPD';
          }),
        ),
      ).to.deep.equal(['sat_payment_form:payment_form_must_be_99']);
      expect(
        found(
          sale((s) => {
            s.sat_payment_method = 'PPD';
            s.sat_payment_form = '99';
          }),
        ),
      ).to.deep.equal([]);
      expect(
        found(
          sale((s) => {
            s.type_of_receipt = 'T';
          }),
        ),
      ).to.include('type_of_receipt:receipt_type_not_supported');
      expect(
        found(
          sale((s) => {
            s.type_of_receipt = 'X';
          }),
        ),
      ).to.include('type_of_receipt:catalog_key_unknown');
      expect(
        found(
          sale((s) => {
            s.exchange_rate = 17.5;
          }),
        ),
      ).to.deep.equal(['exchange_rate:exchange_rate_not_allowed']);
      expect(
        found(
          sale((s) => {
            s.exchange_rate = 1;
          }),
        ),
      ).to.deep.equal([]);
      expect(
        found(
          sale((s) => {
            s.global_info = { periodicity: '04', months: '13', year: 2026 };
          }),
        ),
      ).to.deep.equal(['global_info.months:months_not_allowed']);
      expect(
        found(
          sale((s) => {
            s.global_info = { periodicity: '05', months: '13', year: 2026 };
          }),
        ),
      ).to.deep.equal([]);
      expect(
        found(
          sale((s) => {
            s.related_cfdis = { tipo_relacion: '99', cfdis: [] };
          }),
        ),
      ).to.deep.equal(['related_cfdis.tipo_relacion:catalog_key_unknown']);
    });

    it('refuses keys outside their validity on the issue date', () => {
      const late = sale((s) => {
        s.operation_data[0]!.sat_product_service_key = '15101506';
      });
      expect(found(late)).to.deep.equal(['operation_data[0].sat_product_service_key:catalog_key_not_in_force']);
      // Before it ended (and before the CFDI 4.0 keys around it started) the product key itself was fine.
      expect(checkQrRules(late, { ...ctx, onDate: '2019-06-01' }).map((d) => d.field)).to.not.include('operation_data[0].sat_product_service_key');
    });
  });
});
