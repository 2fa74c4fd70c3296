// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb into
// a temporary directory, the server listening only on a unix socket in that
// directory, removed again when the test ends. It needs Debian's postgresql
// server package (binaries under /usr/lib/postgresql/*/bin); .ci/run installs
// it where missing. initdb refuses to run as root, so as root the cluster runs
// as the postgres user (runuser), which owns the temporary directory.
package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a running throwaway cluster.
type Cluster struct {
	dir   string // data and socket directory
	bin   string // directory of initdb, pg_ctl, postgres
	runAs string // "" or the user the server runs as (when the test is root)
}

// port names the socket file (.s.PGSQL.5432); the server listens on no TCP
// port, so every cluster can use the same one.
const port = 5432

// BinDir finds the PostgreSQL server binaries: $PG_BIN, else the newest
// /usr/lib/postgresql/*/bin holding postgres, else the directory of initdb on $PATH.
func BinDir() (string, error) {
	if d := os.Getenv("PG_BIN"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("pgtest: no PostgreSQL server binaries (initdb, pg_ctl, postgres) under /usr/lib/postgresql/*/bin or on PATH: install Debian's postgresql package (apt-get install -y postgresql) or set PG_BIN")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Start initialises and starts a cluster, stopped and removed when t ends.
// A missing server is a test failure naming what to install, never a skip.
func Start(t testing.TB) *Cluster {
	t.Helper()
	c, err := start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	})
	return c
}

func start() (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "conform-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	c := &Cluster{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: running as root, initdb needs another user and there is no postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: %w", err)
		}
		c.runAs = "postgres"
	}
	data := filepath.Join(dir, "data")
	if out, err := c.run("initdb", "-D", data, "-A", "trust", "-U", "conform", "--no-sync", "-E", "UTF8", "--no-locale"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	opts := fmt.Sprintf("-c listen_addresses='' -c unix_socket_directories=%s -c port=%d -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", dir, port)
	if out, err := c.run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	return c, nil
}

// run runs a PostgreSQL binary, as c.runAs when set.
func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	path := filepath.Join(c.bin, name)
	var cmd *exec.Cmd
	if c.runAs != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.runAs, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Dir = c.dir
	err := cmd.Run()
	return out.Bytes(), err
}

// DSN is a connection string for database db of the cluster (user conform).
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("postgres://conform@/%s?host=%s&port=%d&sslmode=disable", db, c.dir, port)
}

// NewDatabase creates an empty database and returns its DSN.
func (c *Cluster) NewDatabase(t testing.TB, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	return c.DSN(name)
}

// Stop stops the server at once and removes its directory.
func (c *Cluster) Stop() error {
	out, err := c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
	rmErr := os.RemoveAll(c.dir)
	if err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %w\n%s", err, out)
	}
	return rmErr
}
