-- The database roles and the schema of one service. A database administrator runs it once per
-- service and environment (again to rotate passwords; it is idempotent), connected to the
-- platform's database:
--
--   psql "$ADMIN_DATABASE_URL" -v ON_ERROR_STOP=1 -v schema=tickets \
--     -v owner_password="$TICKETS_OWNER_PASSWORD" -v app_password="$TICKETS_APP_PASSWORD" \
--     -f deploy/postgres/provision-service.sql
--
-- <schema>_owner owns the schema and applies its migrations (the `migrate` init container, Secret
-- key MIGRATION_DATABASE_URL). <schema>_app is what the service runs as (Secret key DATABASE_URL):
-- it reads and writes the schema's tables and sequences and can change no structure, nor
-- touch another service's schema. `-v role_prefix=dev_` names the roles dev_tickets_owner etc.,
-- for environments that share one Postgres server.

\set ON_ERROR_STOP on
\if :{?schema}
\else
  \echo 'usage: psql ... -v schema=<service> -v owner_password=... -v app_password=... -f provision-service.sql'
  \quit
\endif
\if :{?role_prefix}
\else
  \set role_prefix ''
\endif
\set owner :role_prefix :schema _owner
\set app :role_prefix :schema _app

SELECT format('CREATE ROLE %I LOGIN', :'owner')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'owner') \gexec
SELECT format('CREATE ROLE %I LOGIN', :'app')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app') \gexec
ALTER ROLE :"owner" LOGIN PASSWORD :'owner_password';
ALTER ROLE :"app" LOGIN PASSWORD :'app_password';

-- The migration command creates its schema with `create schema if not exists`, which Postgres
-- checks against CREATE on the database even when the schema exists.
SELECT format('GRANT CONNECT, CREATE ON DATABASE %I TO %I', current_database(), :'owner') \gexec
SELECT format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), :'app') \gexec

-- A non-superuser administrator must be a member of the owner role to create its schema.
SELECT format('GRANT %I TO %I', :'owner', current_user)
WHERE NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) \gexec
CREATE SCHEMA IF NOT EXISTS :"schema" AUTHORIZATION :"owner";
ALTER SCHEMA :"schema" OWNER TO :"owner";

GRANT USAGE ON SCHEMA :"schema" TO :"app";
-- Tables and sequences that migrations create from now on...
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA :"schema"
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA :"schema"
  GRANT USAGE, SELECT ON SEQUENCES TO :"app";
-- ...and those that exist already (provisioning after the first migration).
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA :"schema" TO :"app";
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA :"schema" TO :"app";
