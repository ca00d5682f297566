// oxia-server: a real Oxia standalone server (single process, N shards,
// replication factor 1) for Lakestream's tests, built only from the Go module
// proxy.
//
// Why a launcher of our own instead of `go install .../oxia/cmd@vX`: since
// v0.15.0 Oxia is split into several Go modules (cmd, oxiad, common, oxia)
// wired together with local `replace` directives, which `go install` refuses,
// and the `cmd` module is not tagged. The server itself lives in the `oxiad`
// module as a library (dataserver.NewStandalone), so we call it directly, the
// same way upstream's `oxia standalone` command does. See README.md.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/oxia-db/oxia/common/concurrent"
	"github.com/oxia-db/oxia/common/logging"
	"github.com/oxia-db/oxia/common/security"
	"github.com/oxia-db/oxia/oxiad/dataserver"
	"github.com/oxia-db/oxia/oxiad/dataserver/database/kvstore"
)

// strVar/boolVar register one flag under a long and a short name; Go's flag
// package accepts both -name and --name, so `-p ADDR` and `--public-addr ADDR`
// both work, as in upstream's `oxia standalone`.
func strVar(p *string, long, short, def, usage string) {
	flag.StringVar(p, long, def, usage)
	if short != "" {
		flag.StringVar(p, short, def, "shorthand for --"+long)
	}
}

func main() {
	// Accept an optional leading "standalone" so the binary is a drop-in for
	// `oxia standalone ...` command lines.
	if len(os.Args) > 1 && os.Args[1] == "standalone" {
		os.Args = append(os.Args[:1], os.Args[2:]...)
	}

	var (
		conf            dataserver.StandaloneConfig
		dataDir, walDir string
		dbDir, logLevel string
		keySorting      string
		shards          uint
		tlsOption       security.TLSOption
	)
	strVar(&dataDir, "data-dir", "d", "./data", "base directory: the DB goes to DIR/db and the WAL to DIR/wal")
	strVar(&dbDir, "db-dir", "", "", "override the DB directory (default DATA-DIR/db)")
	strVar(&walDir, "wal-dir", "", "", "override the WAL directory (default DATA-DIR/wal)")
	strVar(&conf.PublicServiceAddr, "public-addr", "p", "0.0.0.0:6648", "public gRPC bind address (port 0 = pick a free port; the chosen one is printed)")
	// The standalone server never opens the internal (replication) port: with
	// replication factor 1 there is no peer. Accepted so that command lines
	// written for a clustered data server still parse.
	strVar(&conf.InternalServiceAddr, "internal-addr", "i", "127.0.0.1:0", "internal bind address (accepted, unused in standalone mode)")
	// Upstream defaults to 0.0.0.0:8080; we default to off so parallel test
	// servers never fight over a fixed port. Use HOST:0 for a free port.
	strVar(&conf.MetricsServiceAddr, "metrics-addr", "m", "", `Prometheus bind address; "" or "0" disables it`)
	flag.UintVar(&shards, "shards", 1, "number of shards in the default namespace")
	flag.UintVar(&shards, "s", 1, "shorthand for --shards")
	strVar(&keySorting, "key-sorting", "", "", `"natural" or "hierarchical" (empty = server default, hierarchical)`)
	strVar(&logLevel, "log-level", "l", "info", "debug, info, warn or error")
	// Oxia's console log format is ANSI-coloured; when stdout is a pipe or a
	// file (a test harness) default to JSON lines instead.
	stat, _ := os.Stdout.Stat()
	isTerminal := stat != nil && stat.Mode()&os.ModeCharDevice != 0
	flag.BoolVar(&logging.LogJSON, "log-json", !isTerminal, "log as JSON lines (default: when stdout is not a terminal)")
	flag.BoolVar(&conf.WalSyncData, "wal-sync-data", true, "fsync the WAL on every write")
	flag.DurationVar(&conf.WalRetentionTime, "wal-retention-time", time.Hour, "retention of WAL entries")
	flag.BoolVar(&conf.NotificationsEnabled, "notifications-enabled", true, "keep change notifications for clients")
	flag.DurationVar(&conf.NotificationsRetentionTime, "notifications-retention-time", time.Hour, "retention of notifications")
	flag.Int64Var(&conf.DbBlockCacheMB, "db-cache-size-mb", kvstore.DefaultFactoryOptions.CacheSizeMB, "shared DB block cache size")
	// TLS on the public gRPC port, as upstream's --tls-cert-file/--tls-key-file: clients must then connect with TLS.
	strVar(&tlsOption.CertFile, "tls-cert-file", "", "", "PEM certificate of the public port (with --tls-key-file: serve TLS)")
	strVar(&tlsOption.KeyFile, "tls-key-file", "", "", "PEM private key of --tls-cert-file")
	flag.Parse()

	fail := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "oxia-server: "+format+"\n", a...)
		os.Exit(2)
	}
	if flag.NArg() > 0 {
		fail("unexpected arguments: %v", flag.Args())
	}
	var err error
	if logging.LogLevel, err = logging.ParseLogLevel(logLevel); err != nil {
		fail("%v", err)
	}
	if shards == 0 || shards > 1<<16 {
		fail("--shards must be between 1 and 65536, got %d", shards)
	}
	conf.NumShards = uint32(shards)
	if keySorting != "" {
		if err := conf.KeySorting.Set(keySorting); err != nil {
			fail("--key-sorting: %v", err)
		}
	}
	if conf.MetricsServiceAddr == "0" {
		conf.MetricsServiceAddr = ""
	}
	conf.DataDir = filepath.Join(dataDir, "db")
	if dbDir != "" {
		conf.DataDir = dbDir
	}
	conf.WalDir = filepath.Join(dataDir, "wal")
	if walDir != "" {
		conf.WalDir = walDir
	}
	if tlsOption.CertFile != "" || tlsOption.KeyFile != "" {
		if conf.ServerTLS, err = tlsOption.MakeServerTLSConf(); err != nil {
			fail("--tls-cert-file %q / --tls-key-file %q: %v", tlsOption.CertFile, tlsOption.KeyFile, err)
		}
	}
	logging.ConfigureLogger()
	server, err := dataserver.NewStandalone(conf)
	if err != nil {
		slog.Error("Failed to start Oxia standalone", slog.Any("error", err))
		os.Exit(1)
	}

	// NewStandalone returns once the gRPC listener is bound, so the server is
	// ready now. Print one stable, parseable line (the actual port, even when
	// --public-addr asked for port 0) for test harnesses to wait on.
	_, port, _ := net.SplitHostPort(server.ServiceAddr())
	host, _, _ := net.SplitHostPort(conf.PublicServiceAddr)
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	fmt.Printf("OXIA-SERVER READY public=%s shards=%d data-dir=%s tls=%t\n",
		net.JoinHostPort(host, port), conf.NumShards, dataDir, conf.ServerTLS != nil)

	// Blocks until SIGINT/SIGTERM, closes the server (flushing WAL and DB)
	// and exits 0 on a clean shutdown, 1 otherwise.
	concurrent.WaitUntilSignal(server)
}
