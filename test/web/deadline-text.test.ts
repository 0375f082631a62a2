import { expect } from 'chai';
import { deadlineHtml, mexicoMomentHtml } from '../../web/render-buyer-page.js';

const text = (html: string) => html.replace(/<[^>]+>/g, '');

describe('issue #39: the buyer page says its times so that nobody misreads them', () => {
  it('a deadline at midnight is the end of the day before, never "12:00 a.m."', () => {
    // 1 December 2026 00:00 in Mexico City (UTC−6).
    const html = deadlineHtml('2026-12-01T06:00:00.000Z');
    expect(text(html)).to.equal('hasta el final del 30 de noviembre de 2026 (medianoche, hora del centro de México)');
    expect(html).to.include('datetime="2026-12-01T06:00:00.000Z"');
    expect(html).to.not.match(/a\.\s?m\.|p\.\s?m\./);
  });

  it('any other moment on a 24-hour clock', () => {
    expect(text(deadlineHtml('2026-12-01T18:30:00.000Z'))).to.equal('hasta el 1 de diciembre de 2026 a las 12:30 (hora del centro de México)');
    expect(text(deadlineHtml('2026-12-01T05:59:00.000Z'))).to.equal('hasta el 30 de noviembre de 2026 a las 23:59 (hora del centro de México)');
    expect(text(mexicoMomentHtml('2026-12-01T06:05:00.000Z'))).to.equal('1 de diciembre de 2026 a las 00:05');
  });
});
