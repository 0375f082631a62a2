import type { Knex } from 'knex';

/**
 * A finished QR keeps no image (issue #19): the PNG (~1.3 KB) is needed while a QR can still be scanned;
 * once INVOICED, EXPIRED or CANCELLED it is rendered again on the rare read (0.3 ms, the same bytes, from
 * the stored token). One trigger, so every way a QR finishes drops it; existing finished rows too.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE qr_transactions ALTER COLUMN qr_png DROP NOT NULL');
  await knex.raw(`
    CREATE FUNCTION qr_transactions_drop_finished_png() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.qr_png := NULL;
      RETURN NEW;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER qr_transactions_finished_png BEFORE INSERT OR UPDATE OF status ON qr_transactions
    FOR EACH ROW WHEN (NEW.status NOT IN ('PENDING', 'SCANNED') AND NEW.qr_png IS NOT NULL)
    EXECUTE FUNCTION qr_transactions_drop_finished_png()`);
  await knex.raw("UPDATE qr_transactions SET qr_png = NULL WHERE status NOT IN ('PENDING', 'SCANNED') AND qr_png IS NOT NULL");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER qr_transactions_finished_png ON qr_transactions');
  await knex.raw('DROP FUNCTION qr_transactions_drop_finished_png()');
  await knex.raw("UPDATE qr_transactions SET qr_png = ''::bytea WHERE qr_png IS NULL");
  await knex.raw('ALTER TABLE qr_transactions ALTER COLUMN qr_png SET NOT NULL');
}
