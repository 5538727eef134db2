// Group commit for the delivery engine (issue 37): items submitted while a batch is being written wait and go
// together in the next one, so one transaction carries every attempt that began or ended meanwhile, with no
// delay added (the first item of an idle batcher waits only for the event loop's turn, which gathers the jobs a
// worker launched together).
/** Runs `write` over batches of items; each submitter gets its own item's result. */
export class GroupCommit<I, O> {
  private queue: { item: I; resolve: (out: O) => void; reject: (error: unknown) => void }[] = [];
  private writing = false;

  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly maxBatch: number,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.writing) return;
      this.writing = true;
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) await this.settle(this.queue.splice(0, this.maxBatch));
    this.writing = false;
  }

  private async settle(batch: GroupCommit<I, O>['queue']): Promise<void> {
    try {
      const outs = await this.write(batch.map((b) => b.item));
      if (outs.length !== batch.length) throw new Error(`a batch of ${batch.length} gave ${outs.length} results`);
      outs.forEach((out, i) => batch[i]?.resolve(out));
    } catch (error) {
      const [only] = batch;
      if (batch.length === 1 && only) return only.reject(error);
      // One item may be at fault (its transaction rolled back for all): each alone, so it fails only itself.
      for (const b of batch) await this.settle([b]);
    }
  }
}
