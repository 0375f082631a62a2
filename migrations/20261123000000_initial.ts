import type { Knex } from 'knex';

// Money and quantities: numeric(15,6) — up to 9 integer digits and 6 decimals, exact.
const MONEY: [number, number] = [15, 6];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.text('id').primary();
    t.text('name').notNullable().unique();
    t.text('client_id').notNullable().unique();
    t.binary('client_secret_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('access_tokens', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('prefix').notNullable().unique();
    t.binary('token_hash').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('groups', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'name']);
  });

  await knex.schema.createTable('issuers', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('group_id').notNullable().references('groups.id');
    t.text('alias').notNullable();
    t.text('rfc').notNullable();
    t.text('id_cif').notNullable();
    t.text('business_name').notNullable();
    t.text('email').notNullable();
    t.text('zip').notNullable();
    t.text('tax_regime_code').notNullable();
    t.text('status').notNullable().defaultTo('ACTIVE');
    t.text('invoice_logo_url');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['group_id', 'rfc']);
  });
  await knex.raw(`ALTER TABLE issuers ADD CONSTRAINT issuers_status_check CHECK (status IN ('ACTIVE','INACTIVE'))`);

  await knex.schema.createTable('merchants', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('issuer_id').notNullable().references('issuers.id');
    t.text('external_merchant_id').notNullable();
    t.text('name').notNullable();
    t.text('billing_profile').notNullable().defaultTo('GENERAL');
    t.jsonb('billing_profile_data');
    t.text('contact_email');
    t.text('contact_phone_number');
    t.jsonb('address');
    t.text('logo_animation').notNullable().defaultTo('NONE');
    t.text('status').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'external_merchant_id']);
  });
  await knex.raw(`ALTER TABLE merchants ADD CONSTRAINT merchants_status_check CHECK (status IN ('ACTIVE','INACTIVE'))`);

  // The merchant's CSD: certificate in clear (it is public), private key and password encrypted at rest.
  await knex.schema.createTable('merchant_csds', (t) => {
    t.text('merchant_id').primary().references('merchants.id').onDelete('CASCADE');
    t.text('mode').notNullable();
    t.binary('certificate_der').notNullable();
    t.binary('private_key_encrypted').notNullable();
    t.binary('password_encrypted').notNullable();
    t.text('certificate_number').notNullable();
    t.text('rfc').notNullable();
    t.timestamp('valid_from', { useTz: true }).notNullable();
    t.timestamp('valid_to', { useTz: true }).notNullable();
    t.text('cer_file_name').notNullable();
    t.text('key_file_name').notNullable();
    t.text('serial_number_prefix');
    t.text('business_code');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchants.id').onDelete('CASCADE');
    t.text('mode').notNullable();
    t.text('prefix').notNullable().unique();
    t.binary('key_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.index(['merchant_id']);
  });
  await knex.raw(`ALTER TABLE api_keys ADD CONSTRAINT api_keys_mode_check CHECK (mode IN ('development','production'))`);

  await knex.schema.createTable('qr_transactions', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchants.id');
    t.text('mode').notNullable();
    t.text('store_uid').notNullable();
    t.text('sale_id').notNullable();
    t.text('idempotency_key').notNullable();
    t.text('operation').notNullable();
    t.decimal('amount', ...MONEY).notNullable();
    t.decimal('subtotal', ...MONEY).notNullable();
    t.text('currency').notNullable();
    t.decimal('exchange_rate', ...MONEY);
    t.text('sat_payment_method').notNullable();
    t.text('sat_payment_form').notNullable();
    t.text('type_of_receipt').notNullable();
    t.text('export_code').notNullable();
    t.text('status').notNullable().defaultTo('PENDING');
    t.jsonb('related_cfdis');
    t.jsonb('global_info');
    t.jsonb('metadata');
    // Opaque random token of qr_content (`t`); unique so a token resolves to one QR.
    t.text('token').notNullable().unique();
    t.text('time_zone').notNullable();
    // Wall-clock emission time in time_zone, the form CFDI's Fecha takes.
    t.text('issued_local').notNullable();
    t.binary('qr_png').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('scanned_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('expired_at', { useTz: true });
    t.unique(['merchant_id', 'idempotency_key']);
  });
  await knex.raw(`ALTER TABLE qr_transactions ADD CONSTRAINT qr_transactions_status_check
    CHECK (status IN ('PENDING','SCANNED','INVOICED','EXPIRED','CANCELLED'))`);
  // The expiry sweep reads only open QRs by expiry.
  await knex.raw(`CREATE INDEX qr_transactions_open_expiry_idx ON qr_transactions (expires_at)
    WHERE status IN ('PENDING','SCANNED')`);

  await knex.schema.createTable('qr_concepts', (t) => {
    t.text('transaction_id').notNullable().references('qr_transactions.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('sku');
    t.text('description').notNullable();
    t.decimal('amount', ...MONEY).notNullable();
    t.decimal('quantity', ...MONEY).notNullable();
    t.decimal('discount', ...MONEY);
    t.decimal('unit_price', ...MONEY).notNullable();
    t.text('sat_unit_key').notNullable();
    t.text('sat_product_service_key').notNullable();
    t.text('sat_tax_object_key').notNullable();
    t.primary(['transaction_id', 'position']);
  });

  await knex.schema.createTable('qr_concept_taxes', (t) => {
    t.text('transaction_id').notNullable();
    t.integer('concept_position').notNullable();
    t.integer('position').notNullable();
    t.text('type').notNullable();
    t.text('tax').notNullable();
    t.text('factor').notNullable();
    t.text('rate');
    t.decimal('taxable_base', ...MONEY).notNullable();
    t.decimal('amount', ...MONEY);
    t.primary(['transaction_id', 'concept_position', 'position']);
    t.foreign(['transaction_id', 'concept_position']).references(['transaction_id', 'position']).inTable('qr_concepts').onDelete('CASCADE');
  });

  // Durable idempotency records: (merchant, scope, key) -> fingerprint of the request and the resource it made.
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('merchant_id').notNullable().references('merchants.id').onDelete('CASCADE');
    t.text('scope').notNullable();
    t.uuid('key').notNullable();
    t.text('fingerprint').notNullable();
    t.text('resource_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['merchant_id', 'scope', 'key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'idempotency_keys',
    'qr_concept_taxes',
    'qr_concepts',
    'qr_transactions',
    'api_keys',
    'merchant_csds',
    'merchants',
    'issuers',
    'groups',
    'access_tokens',
    'accounts',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
