// For the knex CLI; the service itself runs migrations with `npm run cli -- migrate` or on `npm start`.
import { knexConfig } from './shared/platform/db.js';

export default knexConfig();
