// `npm run worker` (development): the fakes of SAT, the PAC and SMTP where no address is set, then the production worker entry.
import { startDevServices } from './dev-services.js';

await startDevServices();
await import('../workers/main.js');
