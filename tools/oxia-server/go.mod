// Launcher for a real Oxia standalone server, built from the Go module proxy.
// See README.md for why it pins the Oxia v0.15.0 server modules.
module dev.lakestream/tools/oxia-server

go 1.25

require (
	// oxiad v0.15.0 asks for pebble v2.1.0, whose cockroachdb/swiss refuses
	// to compile on Go >= 1.26 (build tag !go1.26). The v2.1.7 patch release
	// brings a swiss that does; same on-disk format line (v2.1.x).
	github.com/cockroachdb/pebble/v2 v2.1.7 // indirect
	// oxiad has no tags of its own; this pseudo-version is the commit of the
	// v0.15.0 release tag (a9521079bd70), the same as common/oxia v0.15.0.
	github.com/oxia-db/oxia/common v0.15.0
	github.com/oxia-db/oxia/oxiad v0.0.0-20251125232015-a9521079bd70
)

require (
	github.com/DataDog/zstd v1.5.7 // indirect
	github.com/RaduBerinde/axisds v0.1.0 // indirect
	github.com/RaduBerinde/btreemap v0.0.0-20250419174037-3d62b7205d54 // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cenkalti/backoff/v4 v4.3.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/cockroachdb/crlib v0.0.0-20241112164430-1264a2edc35b // indirect
	github.com/cockroachdb/errors v1.12.0 // indirect
	github.com/cockroachdb/logtags v0.0.0-20241215232642-bb51bb14a506 // indirect
	github.com/cockroachdb/redact v1.1.6 // indirect
	github.com/cockroachdb/swiss v0.0.0-20260820225851-333444432258 // indirect
	github.com/cockroachdb/tokenbucket v0.0.0-20250429170803-42689b6311bb // indirect
	github.com/coreos/go-oidc/v3 v3.17.0 // indirect
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/edsrzf/mmap-go v1.2.0 // indirect
	github.com/emirpasic/gods/v2 v2.0.0-alpha // indirect
	github.com/getsentry/sentry-go v0.32.0 // indirect
	github.com/go-jose/go-jose/v4 v4.1.3 // indirect
	github.com/go-logr/logr v1.4.2 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang/snappy v1.0.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/grpc-ecosystem/go-grpc-prometheus v1.2.0 // indirect
	github.com/klauspost/compress v1.18.0 // indirect
	github.com/kr/pretty v0.3.1 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/minio/minlz v1.0.1-0.20250507153514-87eb42fe8882 // indirect
	github.com/mitchellh/mapstructure v1.5.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/oxia-db/oxia/oxia v0.0.0-00010101000000-000000000000 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/planetscale/vtprotobuf v0.6.1-0.20240319094008-0393e58bdf10 // indirect
	github.com/prometheus/client_golang v1.22.0 // indirect
	github.com/prometheus/client_model v0.6.2 // indirect
	github.com/prometheus/common v0.63.0 // indirect
	github.com/prometheus/procfs v0.16.1 // indirect
	github.com/rogpeppe/go-internal v1.14.1 // indirect
	github.com/rs/zerolog v1.34.0 // indirect
	github.com/samber/lo v1.50.0 // indirect
	github.com/samber/slog-common v0.18.1 // indirect
	github.com/samber/slog-zerolog/v2 v2.7.3 // indirect
	go.opentelemetry.io/auto/sdk v1.1.0 // indirect
	go.opentelemetry.io/otel v1.35.0 // indirect
	go.opentelemetry.io/otel/exporters/prometheus v0.57.0 // indirect
	go.opentelemetry.io/otel/metric v1.35.0 // indirect
	go.opentelemetry.io/otel/sdk v1.35.0 // indirect
	go.opentelemetry.io/otel/sdk/metric v1.35.0 // indirect
	go.opentelemetry.io/otel/trace v1.35.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	golang.org/x/exp v0.0.0-20250506013437-ce4c2cf36ca6 // indirect
	golang.org/x/net v0.47.0 // indirect
	golang.org/x/oauth2 v0.33.0 // indirect
	golang.org/x/sys v0.38.0 // indirect
	golang.org/x/text v0.31.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20250218202821-56aae31c358a // indirect
	google.golang.org/grpc v1.72.0 // indirect
	google.golang.org/protobuf v1.36.6 // indirect
)

// oxiad's own go.mod requires its sibling modules at the placeholder
// v0.0.0-00010101000000-000000000000 and points them at ../common and
// ../oxia with replace directives, which Go ignores in a dependency.
// Map the placeholders onto the real tags cut from the same commit
// (a9521079bd70 = refs/tags/v0.15.0, common/v0.15.0, oxia/v0.15.0).
replace (
	github.com/oxia-db/oxia/common v0.0.0-00010101000000-000000000000 => github.com/oxia-db/oxia/common v0.15.0
	github.com/oxia-db/oxia/oxia v0.0.0-00010101000000-000000000000 => github.com/oxia-db/oxia/oxia v0.15.0
)
