package explore

import (
	"context"
	"encoding/json"
)

// Target is a server explore sends requests to, as the suite's config
// describes it: its base URL, its users, its fixtures, its declared choices
// and where its webhook deliveries reach the explorer. The CLI fills it
// from the suite's config (and the Model from the reference's seeded one).
type Target struct {
	// URL is the server's base URL.
	URL string
	// Users are the HTTP Basic users the requests act as; a nil one sends
	// no credentials.
	Users Users
	// Fixtures are the values of {fixture:key}, as the suite's config
	// lists them: each key and its value ("" when unset).
	Fixtures [][2]string
	// Profile declares the target's choices over the reference's defaults
	// (profile keys of schemas/judging.json); nil: the defaults.
	Profile json.RawMessage
	// Receiver is where the explorer's webhook receiver listens, and the
	// base URL the target must post to when it cannot reach that address.
	Receiver Receiver
}

// User is one HTTP Basic user of a target.
type User struct {
	Username, Password string
}

// Users are the users a sequence acts as.
type Users struct {
	Platform         *User // ROLE_PLATFORM, application A
	Merchant         *User // ROLE_MERCHANT, application A
	OtherApplication *User // ROLE_PLATFORM, application B
}

// Receiver configures the explorer's webhook receiver.
type Receiver struct {
	// Listen is the local address it binds; "" is 127.0.0.1:0.
	Listen string
	// PublicURL is the base URL the target posts to; "" derives it from
	// the bound address.
	PublicURL string
}

// Observer runs the conformance suite against the target and returns the
// profile it writes for it (as conform run --write-profile): the target's
// observed choices. Workers bounds the scenarios run at once. The CLI
// fills it with the suite; explore itself never runs the suite.
type Observer func(ctx context.Context, workers int) (json.RawMessage, error)
