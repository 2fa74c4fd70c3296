package reference

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/pgtest"
)

// sandboxReplica is a Server whose whole sandbox is on dsn, as one
// conform serve --store process of several.
func sandboxReplica(t *testing.T, dsn string) *harness {
	t.Helper()
	pg := openPostgres(t, dsn)
	return newHarness(t, func(c *Config) {
		c.Postgres, c.PostgresSandbox = pg, true
		c.NewID = randomID
	})
}

func TestPostgresSandboxReplicasAreOneSandbox(t *testing.T) {
	cluster := pgtest.Start(t)
	dsn := cluster.NewDatabase(t, "sandbox")
	a, b := sandboxReplica(t, dsn), sandboxReplica(t, dsn)
	require.Equal(t, a.fx, b.fx, "replicas with one seed have the same credentials and fixtures")

	body := map[string]any{"amount": 4321, "currency": "USD", "description": "x", "source": "OPERATING_ACCOUNT",
		"destination": "FOR_BENEFIT_OF_ACCOUNT", "processor_type": "LITLE_V1"}
	id := a.expect(a.call(a.platform(), "POST", "/balance_transfers", body), 201, "balance_transfer").str(t, "id")
	r := b.expect(b.call(b.platform(), "GET", "/balance_transfers/"+id, nil), 200, "balance_transfer")
	assert.EqualValues(t, 4321, r.json(t)["amount"], "made through one replica, read through the other")
	b.expect(b.call(b.fx.Credentials.OtherApplication, "GET", "/balance_transfers/"+id, nil), 404, "error")

	ns, err := a.srv.CreateNamespace()
	require.NoError(t, err)
	assert.Equal(t, 1, b.srv.NamespaceCount(), "a namespace minted through one replica is the other's")
	b.expect(b.call(ns.Credentials.Platform, "GET", "/balance_transfers/"+ns.Fixtures.BalanceTransfer, nil), 200, "balance_transfer")
	require.NoError(t, b.srv.DropNamespace(ns.ID))
	b.expect(a.call(ns.Credentials.Platform, "GET", "/balance_transfers/"+ns.Fixtures.BalanceTransfer, nil), 401, "error")

	require.NoError(t, a.srv.Close())
	again := sandboxReplica(t, dsn)
	assert.Equal(t, a.fx, again.fx)
	again.expect(again.call(again.platform(), "GET", "/balance_transfers/"+id, nil), 200, "balance_transfer")
}
