// The `randomizer` block's choice (Part B, "Block catalog", randomizer): not a draw, a deterministic spread of
// runs across the options by percentage, from the counts of runs that took each option so far. Pure.
import { decimalFromNumber } from '../../evaluate/values.js';

/**
 * The option index the next run takes. The first run (no counts yet) takes option 0. Each later run takes the
 * option furthest below its share: the largest `share_i × runs − counts_i`, where runs is the sum of the counts
 * and share_i is percentage_i over the sum of the percentages (so the shares hold even when the percentages
 * do not sum to exactly 100). Ties go to the lowest index. 50/50 alternates 0, 1, 0, 1; 70/30 gives exactly
 * 7 and 3 in any 10 runs from the start.
 *
 * The comparison is exact (percentages as decimals scaled to integers, BigInt arithmetic), so float noise
 * never breaks a tie. A negative or non-finite percentage counts as 0, a missing or negative count as 0, a
 * fractional count is cut to a whole number. With no options, or all percentages 0, the answer is 0.
 */
export function chooseOption(percentages: readonly number[], counts: readonly number[]): number {
  if (percentages.length === 0) return 0;
  const shares = percentages.map((p) => (Number.isFinite(p) && p > 0 ? decimalFromNumber(p) : null));
  const scale = Math.max(0, ...shares.map((s) => s?.scale ?? 0));
  const weights = shares.map((s) => (s === null ? 0n : s.units * 10n ** BigInt(scale - s.scale)));
  const total = weights.reduce((sum, w) => sum + w, 0n);
  if (total === 0n) return 0;
  const taken = percentages.map((_, i) => {
    const count = counts[i];
    return typeof count === 'number' && Number.isFinite(count) && count > 0 ? BigInt(Math.trunc(count)) : 0n;
  });
  const runs = taken.reduce((sum, c) => sum + c, 0n);
  if (runs === 0n) return 0;
  // deficit_i × total = weight_i × runs − count_i × total; same positive factor for every option.
  let best = 0;
  let bestDeficit: bigint | null = null;
  weights.forEach((weight, i) => {
    const deficit = weight * runs - (taken[i] ?? 0n) * total;
    if (bestDeficit === null || deficit > bestDeficit) {
      best = i;
      bestDeficit = deficit;
    }
  });
  return best;
}
