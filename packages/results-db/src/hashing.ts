import { sha256Hex } from '@tunelab/scenarios';
import { canonicalJson, stableHardwareFields, type HardwareSpec } from '@tunelab/contracts';

/** Exact machine identity: sha256 of the canonical stable fields only (never clock speed). */
export const hardwareFingerprint = (spec: HardwareSpec) => sha256Hex(canonicalJson(stableHardwareFields(spec)));

export const settingsHash = (settings: Record<string, string>) => sha256Hex(canonicalJson(settings));

export const requestHash = (body: unknown) => sha256Hex(canonicalJson(body));
