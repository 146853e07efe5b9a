// The worker thread of add-contacts-body.ts: reads and prepares the bodies of POST /addressbooks/{id}/emails.
import { serveJobs } from '../../lib/worker-thread.js'
import { prepareContactsBody, type BodyJob, type PreparedBody } from './add-contacts-prepare.js'

serveJobs<BodyJob, PreparedBody>((job) => ({ value: prepareContactsBody(job) }))
