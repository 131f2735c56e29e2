import { sha256Hex } from '@tunelab/scenarios';
import { canonicalJson, stableHardwareFields, type HardwareSpec } from '@tunelab/contracts';

/** Exact machine identity: sha256 of the canonical stable fields only (never clock speed). */
export const hardwareFingerprint = (spec: HardwareSpec) => sha256Hex(canonicalJson(stableHardwareFields(spec)));

export const settingsHash = (settings: Record<string, string>) => sha256Hex(canonicalJson(settings));

/** The body's identity when no Idempotency-Key is sent (`body:<hash>`): key order never changes it. */
export const requestHash = (body: unknown) => sha256Hex(canonicalJson(body));

/**
 * A run's `request_hash`: the sha256 of its document's text, ~10× cheaper than canonical JSON of a
 * 36 kB body. A replay whose text differs is still compared canonically (see ingest.ts).
 */
export const documentTextHash = (text: string) => sha256Hex(text);
