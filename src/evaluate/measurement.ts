/**
 * The value of one evaluation measurement: a fraction that always carries its numerator and
 * denominator. "Undefined" (the measurement does not apply, e.g. faithfulness of an answer with no
 * claims) is a value of its own: `value: null` plus a reason. It is never reported as 0 or 1.
 */

/** A defined fraction `num / den` (den > 0). */
export interface DefinedMeasurement {
  num: number;
  den: number;
  value: number;
}

/** A measurement that does not apply to this answer; `undefinedReason` says why. */
export interface UndefinedMeasurement {
  num: number;
  den: number;
  value: null;
  undefinedReason: string;
}

/** `{num, den, value}` or Undefined (`value: null` with a reason). */
export type Measurement = DefinedMeasurement | UndefinedMeasurement;

/**
 * `num / den`, or Undefined with `reasonIfZeroDen` when `den` is 0.
 *
 * @example ratio(2, 3, 'no claims') // {num: 2, den: 3, value: 0.666…}
 * @example ratio(0, 0, 'no claims') // {num: 0, den: 0, value: null, undefinedReason: 'no claims'}
 */
export function ratio(num: number, den: number, reasonIfZeroDen: string): Measurement {
  if (den === 0) return { num, den, value: null, undefinedReason: reasonIfZeroDen };
  return { num, den, value: num / den };
}

/** An Undefined measurement with the given reason (num and den default to 0). */
export function undefinedMeasurement(reason: string, num = 0, den = 0): UndefinedMeasurement {
  return { num, den, value: null, undefinedReason: reason };
}

/** True when the measurement has a value. */
export function isDefined(m: Measurement): m is DefinedMeasurement {
  return m.value !== null;
}

/** The value of a measurement, or null when Undefined. Convenient for summaries. */
export function valueOf(m: Measurement): number | null {
  return m.value;
}
