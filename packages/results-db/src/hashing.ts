import { createHash } from 'node:crypto';
import { canonicalJson, stableHardwareFields, type HardwareSpec } from '@tunelab/contracts';

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Exact machine identity: sha256 of the canonical stable fields only (never clock speed). */
export const hardwareFingerprint = (spec: HardwareSpec) => sha256(canonicalJson(stableHardwareFields(spec)));

export const settingsHash = (settings: Record<string, string>) => sha256(canonicalJson(settings));

export const requestHash = (body: unknown) => sha256(canonicalJson(body));
