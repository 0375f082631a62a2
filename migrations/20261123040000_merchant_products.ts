import type { Knex } from 'knex';

// A merchant's product catalog: SAT keys and tax rates per sku, so QR concepts can name products by sku.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('merchant_products', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchants.id').onDelete('CASCADE');
    t.text('sku').notNullable();
    t.text('description').notNullable();
    t.decimal('unit_price', 15, 6).notNullable();
    t.text('sat_unit_key').notNullable();
    t.text('sat_product_service_key').notNullable();
    t.text('sat_tax_object_key').notNullable();
    t.jsonb('taxes').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['merchant_id', 'sku']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('merchant_products');
}
