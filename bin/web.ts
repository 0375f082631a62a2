// `npm run web` (development): the fakes of SAT, the PAC and SMTP where no address is set, then the production API entry.
import { startDevServices } from './dev-services.js';

await startDevServices();
await import('../api/main.js');
