/**
 * pdfkit turns every content operator of a page (`1 0 0 1 36 700 cm`, `[<4c> 0] TJ`, …) into its own
 * byte array and concatenates the few thousand of them when the page ends: ~7 % of an invoice PDF's time.
 * Here a page's operators are gathered as one string and handed to pdfkit as one buffer when the page
 * ends, converted the way pdfkit converts each (a char's low byte), so the file does not change by a byte
 * (test/shared/pdf/page-content-as-text.test.ts).
 */
import type PDFDocument from 'pdfkit';

type Chunk = string | Uint8Array;

/** pdfkit 0.20's PDFReference as a page's content stream uses it (not part of its typed API). */
interface ContentStream {
  write(chunk: Chunk): void;
  end(chunk?: Chunk): void;
}

interface WithPage {
  page?: { content: ContentStream };
  on(event: 'pageAdded', listener: () => void): unknown;
}

function gather(stream: ContentStream): void {
  const write = stream.write.bind(stream);
  const end = stream.end.bind(stream);
  let text = '';
  const flush = (): void => {
    if (text.length === 0) return;
    write(Buffer.from(text, 'latin1'));
    text = '';
  };
  stream.write = (chunk) => {
    if (chunk instanceof Uint8Array) {
      flush();
      write(chunk);
    } else {
      text += `${chunk}\n`;
    }
  };
  stream.end = (chunk) => {
    if (chunk) stream.write(chunk);
    flush();
    end();
  };
}

/** Gathers the content of the document's current page and of every page added later. */
export function gatherPageContentAsText(doc: InstanceType<typeof PDFDocument>): void {
  const pages = doc as unknown as WithPage;
  if (pages.page) gather(pages.page.content);
  pages.on('pageAdded', () => {
    if (pages.page) gather(pages.page.content);
  });
}
