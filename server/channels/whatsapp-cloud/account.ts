// What the platform reads of a WhatsApp Cloud API number when it is attached, and again on a template sync: the
// number's display phone and verified name (`GET /{version}/{phone_number_id}`), and the WhatsApp Business
// Account's templates (`GET /{version}/{waba_id}/message_templates`, every page). A read answers what the Graph
// API said in three kinds the admin routes tell apart: the token was refused, the Graph API did not answer, or
// it refused the request for another reason.

/** Why a read failed. `unauthorized`: Meta's 190, 10 or a permission error (200–299). */
export type GraphReadFailure = { failure: 'unauthorized' | 'unavailable' | 'refused'; message: string };
export type GraphRead<T> = { ok: true; value: T } | ({ ok: false } & GraphReadFailure);

export interface NumberProfile {
  /** As Meta displays it (`+1 555-010-0001`). */
  displayPhoneNumber: string;
  verifiedName: string | null;
}

/** The Graph API reads of a number, with its token. */
export interface WhatsAppCloudAccountApi {
  readNumber(accessToken: string, phoneNumberId: string): Promise<GraphRead<NumberProfile>>;
  /** Every page of the account's templates, as Meta lists them (unchecked: the domain reads them). */
  readTemplates(accessToken: string, wabaId: string): Promise<GraphRead<unknown[]>>;
}
