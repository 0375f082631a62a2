import type { Knex } from 'knex';

// Merchant logos (issue #4): public URLs of the normalized images and the names they were uploaded with.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchants', (t) => {
    t.text('invoice_logo_url');
    t.text('invoice_logo_file_name');
    t.text('app_logo_url');
    t.text('app_logo_file_name');
  });
  await knex.raw(`ALTER TABLE merchants ADD CONSTRAINT merchants_logo_animation_check CHECK (logo_animation IN ('NONE','BOUNCE'))`);
  await knex.raw(`ALTER TABLE merchants ADD CONSTRAINT merchants_billing_profile_check
    CHECK (billing_profile IN ('GENERAL','FUEL','RESTAURANT','RETAIL','SERVICES'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE merchants DROP CONSTRAINT merchants_logo_animation_check');
  await knex.raw('ALTER TABLE merchants DROP CONSTRAINT merchants_billing_profile_check');
  await knex.schema.alterTable('merchants', (t) => {
    t.dropColumns('invoice_logo_url', 'invoice_logo_file_name', 'app_logo_url', 'app_logo_file_name');
  });
}
