/**
 * The k-th largest of `values` (k = 1 is the maximum), by quickselect: Hoare partitioning around
 * the median of three, expected O(n), on `scratch` (overwritten; it must hold `values.length`
 * numbers) so the input is left as it was. Used to find the int8 scan's candidate threshold in
 * one pass instead of a heap of candidates.
 *
 * Edge cases: k ≤ 0 → +∞ (nothing is needed); k > n → −∞ (everything is needed); NaN values are
 * treated as −∞; ties count once each (with values 3, 3, 1 the 2nd largest is 3).
 */
export function kthLargest(values: ArrayLike<number>, k: number, scratch: Float64Array): number {
  const n = values.length;
  if (k <= 0) return Infinity;
  if (k > n) return -Infinity;
  const a = scratch;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    a[i] = v === v ? v : -Infinity;
  }
  // The k-th largest is the (n − k)-th smallest, 0-based.
  const target = n - k;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    // Median of three into a[mid], a guard on both sides.
    if (a[mid]! < a[lo]!) swap(a, mid, lo);
    if (a[hi]! < a[lo]!) swap(a, hi, lo);
    if (a[hi]! < a[mid]!) swap(a, hi, mid);
    const pivot = a[mid]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    // Now a[lo..j] ≤ pivot ≤ a[i..hi], and a[j+1..i-1] = pivot.
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return pivot;
  }
  return a[target]!;
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}
