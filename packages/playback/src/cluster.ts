/** Entry `@svc/playback/cluster`: one packager per DASH channel across the instances of a cluster. */

export type {
  AcquireOutcome,
  ChannelLease,
  ChannelLeaseStore,
  LeaseHolder,
  LeaseView,
} from "./cluster/channel-lease-store.js";
export {
  type ChannelOwnership,
  createChannelOwnership,
  LEASE_RENEW_MS,
  LEASE_TTL_MS,
  type Owner,
} from "./cluster/channel-ownership.js";
export {
  type ClusterMembership,
  type ClusterMembershipOptions,
  joinCluster,
  newInstanceId,
} from "./cluster/cluster-membership.js";
export { INSTANCE_TOKEN_HEADER } from "./cluster/instance-token.js";
export {
  createPackagingCluster,
  type PackagingCluster,
  type PackagingClusterOptions,
} from "./cluster/packaging-cluster.js";
