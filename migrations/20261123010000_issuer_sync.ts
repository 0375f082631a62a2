import type { Knex } from 'knex';

// The last CSF synchronization of each issuer: state, job, attempts, times and the reason of a failure.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('issuers', (t) => {
    t.text('sync_status');
    t.text('sync_job_id');
    t.integer('sync_attempts').notNullable().defaultTo(0);
    t.text('sync_error');
    t.timestamp('sync_requested_at', { useTz: true });
    t.timestamp('sync_finished_at', { useTz: true });
  });
  await knex.raw(`ALTER TABLE issuers ADD CONSTRAINT issuers_sync_status_check
    CHECK (sync_status IN ('PENDING','RUNNING','RETRY_SCHEDULED','SUCCEEDED','FAILED'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('issuers', (t) => {
    t.dropColumns('sync_status', 'sync_job_id', 'sync_attempts', 'sync_error', 'sync_requested_at', 'sync_finished_at');
  });
}
