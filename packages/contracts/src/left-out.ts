/** Runs left out of a verdict, and why (the policy itself is `@tunelab/answers`' left-out.ts). */
import { z } from 'zod';

/**
 * Why runs were left out of an answer's verdict (`@tunelab/answers`' left-out policy): `noisy`, a
 * run flagged noisy when the answers leave noisy runs out (`noisy=exclude`, the site's default).
 */
export const LeftOutReason = z.enum(['noisy']);
export type LeftOutReason = z.infer<typeof LeftOutReason>;

/** A group left out of the verdict: what it was, in a label ("measured on a noisy machine: does not count towards the verdict"), and why. */
export const LeftOut = z.object({ reason: LeftOutReason, label: z.string(), why: z.string() });
export type LeftOut = z.infer<typeof LeftOut>;
