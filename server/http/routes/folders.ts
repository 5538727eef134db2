// The four /v1/folders routes; the rules live in domain/workflows/folders.
import { createFolder, deleteFolder, folderView, listFolders, updateFolder } from '../../domain/workflows/folders.js';
import type { Handlers } from '../context.js';
import { pageRequest } from '../page.js';

export const folderHandlers: Handlers = {
  listFolders: async ({ app, caller, query }) => {
    const page = await listFolders(
      app.database.db,
      app.clock,
      caller.account.id,
      query.type ?? 'workflow',
      pageRequest(query),
    );
    return { status: 200, body: { data: page.data.map(folderView), next_cursor: page.next_cursor } };
  },
  createFolder: async ({ app, caller, body }) => ({
    status: 201,
    body: folderView(await createFolder(app.database.db, app.clock, caller.account.id, body)),
  }),
  updateFolder: async ({ app, caller, params, body }) => ({
    status: 200,
    body: folderView(await updateFolder(app.database.db, app.clock, caller.account.id, params.folderId, body)),
  }),
  deleteFolder: async ({ app, caller, params }) => {
    const { id, deletedFolderIds } = await deleteFolder(app.database.db, app.clock, caller.account.id, params.folderId);
    return { status: 200, body: { id, deleted: true, deleted_folder_ids: deletedFolderIds } };
  },
};
