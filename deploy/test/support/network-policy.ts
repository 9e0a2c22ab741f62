// A small evaluator of Kubernetes NetworkPolicy semantics, enough for the rendered policies:
// pod and namespace selectors (matchLabels, matchExpressions), ipBlock, numeric ports, and the
// isolation rule (a pod selected by a policy of a direction allows only what some such policy
// allows). A connection needs the source's egress and the destination's ingress.
import type { K8sObject } from "./kustomize.ts";

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: "In" | "NotIn" | "Exists" | "DoesNotExist"; values?: string[] }[];
}

interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}

interface Rule {
  ports?: { protocol?: string; port?: number | string; endPort?: number }[];
  from?: Peer[];
  to?: Peer[];
}

export interface NetworkPolicy extends K8sObject {
  spec: { podSelector: LabelSelector; policyTypes?: ("Ingress" | "Egress")[]; ingress?: Rule[]; egress?: Rule[] };
}

/** A pod (in a namespace with labels) or an address outside the cluster. */
export type Endpoint =
  | { pod: Record<string, string>; namespace: string; namespaceLabels?: Record<string, string> }
  | { ip: string };

export function matchesSelector(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const expression of selector.matchExpressions ?? []) {
    const value = labels[expression.key];
    const values = expression.values ?? [];
    const ok =
      expression.operator === "In"
        ? value !== undefined && values.includes(value)
        : expression.operator === "NotIn"
          ? value === undefined || !values.includes(value)
          : expression.operator === "Exists"
            ? value !== undefined
            : value === undefined;
    if (!ok) return false;
  }
  return true;
}

function ipToNumber(ip: string): number {
  return ip.split(".").reduce((sum, part) => sum * 256 + Number(part), 0);
}

function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split("/");
  const size = 2 ** (32 - Number(bits));
  const start = Math.floor(ipToNumber(base!) / size) * size;
  const value = ipToNumber(ip);
  return value >= start && value < start + size;
}

function namespaceLabels(endpoint: { namespace: string; namespaceLabels?: Record<string, string> }): Record<string, string> {
  return { "kubernetes.io/metadata.name": endpoint.namespace, ...endpoint.namespaceLabels };
}

function peerMatches(peer: Peer, endpoint: Endpoint, policyNamespace: string): boolean {
  if ("ip" in endpoint) {
    if (!peer.ipBlock) return false;
    return inCidr(endpoint.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((cidr) => inCidr(endpoint.ip, cidr));
  }
  if (peer.ipBlock) return false; // ipBlock is meant for addresses outside the cluster
  const namespaceOk = peer.namespaceSelector
    ? matchesSelector(peer.namespaceSelector, namespaceLabels(endpoint))
    : endpoint.namespace === policyNamespace;
  const podOk = peer.podSelector ? matchesSelector(peer.podSelector, endpoint.pod) : true;
  return namespaceOk && podOk;
}

function portMatches(rule: Rule, port: number, protocol: string): boolean {
  if (!rule.ports || rule.ports.length === 0) return true;
  return rule.ports.some((p) => {
    if ((p.protocol ?? "TCP") !== protocol) return false;
    if (p.port === undefined) return true;
    if (typeof p.port === "string") throw new Error("named ports are not evaluated here");
    return p.endPort ? port >= p.port && port <= p.endPort : port === p.port;
  });
}

function policyTypes(policy: NetworkPolicy): string[] {
  if (policy.spec.policyTypes) return policy.spec.policyTypes;
  return policy.spec.egress ? ["Ingress", "Egress"] : ["Ingress"];
}

function allowedIn(
  policies: NetworkPolicy[],
  direction: "Ingress" | "Egress",
  self: { pod: Record<string, string>; namespace: string },
  peer: Endpoint,
  port: number,
  protocol: string,
): boolean {
  const applying = policies.filter(
    (policy) =>
      (policy.metadata.namespace ?? self.namespace) === self.namespace &&
      policyTypes(policy).includes(direction) &&
      matchesSelector(policy.spec.podSelector, self.pod),
  );
  if (applying.length === 0) return true; // not isolated in this direction
  return applying.some((policy) =>
    (direction === "Ingress" ? policy.spec.ingress : policy.spec.egress)?.some((rule) => {
      const peers = direction === "Ingress" ? rule.from : rule.to;
      const peerOk = !peers || peers.length === 0 || peers.some((candidate) => peerMatches(candidate, peer, self.namespace));
      return peerOk && portMatches(rule, port, protocol);
    }),
  );
}

/** May `from` open a connection to `to` on port/protocol under these policies? */
export function connectionAllowed(policies: NetworkPolicy[], from: Endpoint, to: Endpoint, port: number, protocol = "TCP"): boolean {
  const egressOk = "ip" in from || allowedIn(policies, "Egress", from, to, port, protocol);
  const ingressOk = "ip" in to || allowedIn(policies, "Ingress", to, from, port, protocol);
  return egressOk && ingressOk;
}
