// tags (Part B): adds or removes tags by name. Names are compared exactly: on `add`, another spelling of an
// existing tag renames the account's tag to the block's spelling (Part B says so) and puts it on; on `remove`,
// another spelling removes nothing. A tag the account no longer has is skipped. 1 output.
import { putTag, removeTag } from '../../../domain/contacts/holdings.js';
import { workflowActor } from '../../../domain/contacts/history.js';
import { respellTag, tagNameKey } from '../../../domain/tags/tags.js';
import { findActiveTagByNameKey } from '../../../store/tags.js';
import type { BlockExecutor } from '../../context.js';
import type { ExecutorEntry } from '../entry.js';

export const execute: BlockExecutor<'tags'> = async (ctx) => {
  const names = ctx.data.tags;
  const actor = workflowActor(ctx.workflow);
  const accountId = ctx.account.id;
  const missing: string[] = [];
  for (const name of names) {
    const tag = await findActiveTagByNameKey(ctx.tx, accountId, tagNameKey(name));
    if (!tag) {
      missing.push(name);
      continue;
    }
    if (ctx.data.operation === 'remove') {
      if (tag.name === name) await removeTag(ctx.tx, ctx.deps.clock, accountId, ctx.contact.id, tag.id, actor);
      continue;
    }
    if (tag.name !== name) await respellTag(ctx.tx, ctx.deps.clock, accountId, tag.id, name);
    await putTag(ctx.tx, ctx.deps.clock, accountId, ctx.contact.id, tag.id, actor);
  }
  await ctx.vars.tagsChanged();
  if (missing.length > 0)
    return {
      failed: { code: 'tag_not_found', message: `The account has no tag ${missing.map((n) => `"${n}"`).join(', ')}.` },
      output: 0,
    };
  return { next: 0 };
};

export const executor: ExecutorEntry<'tags'> = { execute };
