import { Server, ServerCredentials, status, type Metadata, type ServiceError } from '@grpc/grpc-js';
import type { PrincipalCodec } from '@svc/kit';
import { IdentityServiceService, type FindMembersRequest, type FindMembersResponse } from '@svc/proto/identity/v1';

type Callback = (error: Partial<ServiceError> | null, value?: FindMembersResponse) => void;

/**
 * A stand-in for identity: the inbox only asks it which ids are members of an org (FindMembers, as a SYSTEM
 * principal of that org). `down` makes it answer UNAVAILABLE, as an unreachable identity would.
 */
export class FakeIdentity {
  readonly server = new Server();
  readonly members = new Map<string, Set<string>>();
  /** The ids asked about, per call, to check that the inbox asks before changing anything. */
  readonly asked: string[][] = [];
  down = false;
  port = 0;

  constructor(private readonly codec: PrincipalCodec) {}

  addMember(orgId: string, memberId: string): string {
    const members = this.members.get(orgId) ?? new Set<string>();
    members.add(memberId);
    this.members.set(orgId, members);
    return memberId;
  }

  removeMember(orgId: string, memberId: string): void {
    this.members.get(orgId)?.delete(memberId);
  }

  async start(): Promise<void> {
    this.server.addService(IdentityServiceService, {
      findMembers: (call: { request: FindMembersRequest; metadata: Metadata }, callback: Callback) => {
        if (this.down) return callback({ code: status.UNAVAILABLE, details: 'identity is down' });
        const { orgId } = this.codec.fromMetadata(call.metadata);
        this.asked.push(call.request.memberIds);
        const members = this.members.get(orgId) ?? new Set<string>();
        callback(null, { memberIds: call.request.memberIds.filter((id) => members.has(id)) });
      },
    });
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
  }

  stop(): void {
    this.server.forceShutdown();
  }
}
