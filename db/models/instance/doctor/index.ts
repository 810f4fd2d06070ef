import { blobs } from './blobs.js';
import { branches } from './branches.js';
import type { DoctorCheck } from './check.js';
import { events } from './events.js';
import { expiredJobs } from './expired-jobs.js';
import { mirrors } from './mirrors.js';
import { repositories } from './repositories.js';

/** Every check of `hearth doctor`, in the order they run: repositories before the branches read from them. */
export const doctorChecks: DoctorCheck[] = [expiredJobs, mirrors, repositories, branches, blobs, events] as DoctorCheck[];
