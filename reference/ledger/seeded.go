package ledger

// Seeded is what New seeded: the users of two applications and the ids of
// application A's resources that the spec has no operation to create. The
// kit's config shape is not the reference's business: cmd/conform maps this
// onto it.
type Seeded struct {
	Credentials Credentials
	Fixtures    FixtureIDs
}

// Credentials are the seeded users.
type Credentials struct {
	Platform         Credential // ROLE_PLATFORM, application A
	Merchant         Credential // ROLE_MERCHANT, application A
	OtherApplication Credential // ROLE_PLATFORM, application B
}

// Credential is one HTTP Basic user.
type Credential struct {
	Username string
	Password string
}

// FixtureIDs names the seeded resources of application A.
type FixtureIDs struct {
	BuyerIdentity         string
	Merchant              string
	MerchantIdentity      string
	PlainMerchant         string
	PlainMerchantIdentity string
	SubscriptionSchedule  string
	SubscriptionAmount    string
	Dispute               string
	BalanceTransfer       string
}
