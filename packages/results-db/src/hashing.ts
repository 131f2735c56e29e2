import { sha256Hex } from '@tunelab/scenarios';
import { canonicalJson, stableHardwareFields, type HardwareSpec } from '@tunelab/contracts';

/** Exact machine identity: sha256 of the canonical stable fields only (never clock speed). */
export const hardwareFingerprint = (spec: HardwareSpec) => sha256Hex(canonicalJson(stableHardwareFields(spec)));

/**
 * The machine a runner reported: its stable fields' fingerprint scoped to the runner (token) that
 * sent it, so another runner that copies a machine's public spec is another machine and can move
 * only its own profile, class and answers. A run without a runner (imported articles) keeps the
 * plain fingerprint.
 */
export const runnerMachineFingerprint = (spec: HardwareSpec, runnerId: string | null) =>
  runnerId === null ? hardwareFingerprint(spec) : sha256Hex(`runner:${runnerId}:${hardwareFingerprint(spec)}`);

export const settingsHash = (settings: Record<string, string>) => sha256Hex(canonicalJson(settings));

/** The body's identity when no Idempotency-Key is sent (`body:<hash>`): key order never changes it. */
export const requestHash = (body: unknown) => sha256Hex(canonicalJson(body));

/**
 * A run's `request_hash`: the sha256 of its document's text, ~10× cheaper than canonical JSON of a
 * 36 kB body. A replay whose text differs is still compared canonically (see ingest.ts).
 */
export const documentTextHash = (text: string) => sha256Hex(text);
