// grpc.health.v1.Health, so Kubernetes gRPC probes and grpc-health-probe can ask a service
// whether it is ready. The overall status ("" service) follows the readiness check.
import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { health } from "@support/proto";

const { Health, HealthCheckResponse_ServingStatus: ServingStatus } = health;

export type ReadinessCheck = () => Promise<boolean>;

export function registerHealthService(router: ConnectRouter, serviceName: string, isReady: ReadinessCheck): void {
  const statusOf = async (service: string) => {
    if (service !== "" && service !== serviceName) return undefined;
    return (await isReady()) ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  };
  router.service(Health, {
    async check(request) {
      const status = await statusOf(request.service);
      if (status === undefined) throw new ConnectError(`unknown service ${request.service}`, Code.NotFound);
      return { status };
    },
    async list() {
      const status = (await statusOf("")) ?? ServingStatus.UNKNOWN;
      return { statuses: { "": { status }, [serviceName]: { status } } };
    },
    async *watch(request, context) {
      let last: number | undefined;
      while (!context.signal.aborted) {
        const status = (await statusOf(request.service)) ?? ServingStatus.SERVICE_UNKNOWN;
        if (status !== last) {
          last = status;
          yield { status };
        }
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 1000);
          context.signal.addEventListener("abort", () => { clearTimeout(timer); resolve(undefined); }, { once: true });
        });
      }
    },
  });
}
