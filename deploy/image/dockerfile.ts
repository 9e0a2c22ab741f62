// Renders services/<service>/Dockerfile from spec.ts, so that the five images share one shape and
// the production-build test runs exactly the steps the Dockerfiles run.
import {
  APP_DIR,
  BASE_IMAGE_ARG,
  ENTRYPOINT_IN_IMAGE,
  ENTRYPOINT_SCRIPT,
  defaultBaseImage,
  entrypoint,
  RUNTIME_UID,
  SLIM_SCRIPT,
  healthcheckCommand,
  installStep,
  pageBuildStep,
  pageInstallStep,
  pageOutput,
  pagePruneStep,
  pageRootFiles,
  pruneStep,
  runtimeEnv,
  slimStep,
  startCommand,
  workdir,
  type ServiceImage,
  type StaticPage,
  type ToolVersions,
} from "./spec.ts";

const PRUNED = "/pruned";
const PRUNED_PAGE = "/pruned-page";
const PAGE_DIR = "/page";
const PNPM_STORE = "/root/.local/share/pnpm/store";
const SLIM_IN_IMAGE = "/usr/local/lib/support/slim-workspace.ts";

/** Shell quoting for RUN lines: words that need it are single-quoted. */
export function shellWords(argv: string[]): string {
  return argv.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)).join(" ");
}

function execForm(argv: string[]): string {
  return JSON.stringify(argv).replaceAll('","', '", "');
}

/** The stage that builds the static pages with their build tools; only their bundles leave it. */
function pageStage(pages: readonly StaticPage[]): string {
  return `
# The static pages ${pages.map((page) => `${page.dir} (${page.pkg})`).join(" and ")},
# built with their devDependencies (their bundler), which stay in this stage: the runtime stage
# copies the built bundles only.
FROM tools AS page
WORKDIR ${PAGE_DIR}
COPY --from=prune ${PRUNED_PAGE}/json/ ./
RUN --mount=type=cache,id=pnpm-store,target=${PNPM_STORE} \\
    ${shellWords(pageInstallStep(pages))}
COPY --from=prune ${PRUNED_PAGE}/full/ ./
COPY ${pageRootFiles(pages).join(" ")} ./
RUN ${shellWords(pageBuildStep(pages))}
`;
}

export function renderDockerfile(image: ServiceImage, versions: ToolVersions): string {
  const page = image.pages !== undefined && image.pages.length > 0 ? image.pages : undefined;
  const env = Object.entries(runtimeEnv(image))
    .map(([key, value]) => `${key}=${value}`)
    .join(" ");
  return `# Generated from deploy/image/spec.ts by \`pnpm --filter @support/deploy dockerfiles\`: edit those, not this.
#
# The ${image.name} service's production image. Build from the repository root:
#   docker build -f services/${image.name}/Dockerfile -t player-support/${image.name} .
# deploy/test/production-build.test.ts runs the same prune, install, slim and start steps without Docker;
# deploy/test/container-images.test.ts builds and runs the images with a real engine.
# Needs BuildKit (Docker 20.10 or later) for the cache mount. No "# syntax" line: the engine's own
# Dockerfile frontend builds it, so a build needs no registry but the base image's.
# The image runs the service's TypeScript sources on Node ${versions.node.split(".")[0]} (type stripping), as every
# environment of this repository does: the workspace libraries stay real folders under ${APP_DIR}, outside
# node_modules, which Node requires for type stripping (see deploy/README.md, "Images").

# The base of every stage; a build without a registry passes a local image with the same layout
# (see deploy/README.md, "Building without a registry").
ARG ${BASE_IMAGE_ARG}=${defaultBaseImage(versions)}

FROM \${${BASE_IMAGE_ARG}} AS tools
ENV TURBO_TELEMETRY_DISABLED=1 npm_config_update_notifier=false
RUN npm install --global --no-fund --no-audit pnpm@${versions.pnpm} turbo@${versions.turbo}

# Only this service, the workspace packages it uses and a pruned lockfile${page ? "; the same for the\n# pages it serves" : ""}.
FROM tools AS prune
WORKDIR /repo
COPY . .
RUN ${shellWords(pruneStep(image, PRUNED))}${page ? `\nRUN ${shellWords(pagePruneStep(page, PRUNED_PAGE))}` : ""}

# Third-party production dependencies, exactly as locked; the sources come after, so that a
# change of code alone reuses the installed layer.
FROM tools AS build
WORKDIR ${APP_DIR}
COPY --from=prune ${PRUNED}/json/ ./
RUN --mount=type=cache,id=pnpm-store,target=${PNPM_STORE} \\
    ${shellWords(installStep(image))}
COPY --from=prune ${PRUNED}/full/ ./
COPY ${SLIM_SCRIPT} ${SLIM_IN_IMAGE}
RUN ${shellWords(slimStep(image, SLIM_IN_IMAGE))}
${page ? pageStage(page) : ""}
FROM \${${BASE_IMAGE_ARG}} AS runtime
# tini as PID 1: forwards SIGTERM to Node (which drains and exits) and reaps zombies.
RUN apt-get update \\
 && apt-get install --yes --no-install-recommends tini \\
 && rm -rf /var/lib/apt/lists/*
ENV ${env}
# Owned by root and not writable by the service's user: the container also runs with a
# read-only root filesystem; only /tmp is writable (an emptyDir in Kubernetes).
COPY --from=build ${APP_DIR} ${APP_DIR}${
    page
      ? `\n# The pages this service serves, where it looks by default (the same place as in the repository).${page.map((one) => `\nCOPY --from=page ${PAGE_DIR}/${pageOutput(one)} ${APP_DIR}/${pageOutput(one)}`).join("")}`
      : ""
  }
# Sets --max-old-space-size from the container's memory limit, then execs the command.
COPY ${ENTRYPOINT_SCRIPT} ${ENTRYPOINT_IN_IMAGE}
WORKDIR ${workdir(image)}
USER ${RUNTIME_UID}:${RUNTIME_UID}
EXPOSE ${image.port}
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \\
  CMD ${execForm(healthcheckCommand(image))}
ENTRYPOINT ${execForm(entrypoint())}
CMD ${execForm(startCommand())}
`;
}
