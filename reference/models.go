package reference

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"time"
)

// The domain records. Exported fields are the JSON representation of the
// resource (spec section 2); unexported fields are bookkeeping that never
// leaves the process. Records are owned by the store and copied out under its
// lock, so a handler never sees a record another goroutine is changing.

// meta holds what every record has: id, timestamps and the owning application.
type meta struct {
	ID        string   `json:"id"`
	CreatedAt jsonTime `json:"created_at"`
	UpdatedAt jsonTime `json:"updated_at"`
	app       string
}

func (m *meta) appID() string { return m.app }

func (m *meta) recordKey() (time.Time, string) { return time.Time(m.CreatedAt), m.ID }

// sortValue returns the value of a sortable field shared by every record;
// a field the record does not have is the zero sortVal.
func (m *meta) sortValue(field string) sortVal {
	switch field {
	case "id":
		return sortVal{s: m.ID}
	case "created_at":
		return sortVal{n: time.Time(m.CreatedAt).UnixNano()}
	case "updated_at":
		return sortVal{n: time.Time(m.UpdatedAt).UnixNano()}
	}
	return sortVal{}
}

func newMeta(id, app string, now time.Time) meta {
	return meta{ID: id, CreatedAt: jsonTime(now), UpdatedAt: jsonTime(now), app: app}
}

type tags map[string]string

// null renders as JSON null; the spec shows several fields that are always null.
type null *struct{}

// Roles (spec section 5).
const (
	rolePlatform = "ROLE_PLATFORM"
	roleMerchant = "ROLE_MERCHANT"
)

type user struct {
	id       string
	password string // in memory; "" when only its salted hash is kept
	role     string
	app      string
	// salt and hash (SHA-256 of salt and password) are what a store that
	// outlives the process keeps instead of the password (unit_postgres.go).
	salt, hash []byte
}

// passwordDigest is what authenticate compares in constant time: the
// salted hash when the user has one, else SHA-256 of its password.
func (u user) passwordDigest(password string) [32]byte {
	if u.hash != nil {
		return saltedHash(u.salt, password)
	}
	return sha256.Sum256([]byte(password))
}

// wantDigest is the user's own digest, compared with passwordDigest's.
func (u user) wantDigest() [32]byte {
	if u.hash != nil {
		var d [32]byte
		copy(d[:], u.hash)
		return d
	}
	return sha256.Sum256([]byte(u.password))
}

// saltedHash is SHA-256 of salt and password. The sandbox's passwords are
// random 32-character tokens, so a fast hash is enough to keep them out of
// the database's plain text.
func saltedHash(salt []byte, password string) [32]byte {
	h := sha256.New()
	h.Write(salt)
	h.Write([]byte(password))
	var d [32]byte
	h.Sum(d[:0])
	return d
}

type identity struct {
	meta
}

type address struct {
	Line1      *string `json:"line1"`
	Line2      *string `json:"line2"`
	City       *string `json:"city"`
	Region     *string `json:"region"`
	PostalCode string  `json:"postal_code"`
	Country    *string `json:"country"`
}

type paymentInstrument struct {
	meta
	Application              string  `json:"application"`
	Fingerprint              string  `json:"fingerprint"`
	Tags                     tags    `json:"tags"`
	ExpirationMonth          int     `json:"expiration_month"`
	ExpirationYear           int     `json:"expiration_year"`
	Bin                      string  `json:"bin"`
	LastFour                 string  `json:"last_four"`
	Brand                    string  `json:"brand"`
	CardType                 string  `json:"card_type"`
	Name                     string  `json:"name"`
	Address                  address `json:"address"`
	AddressVerification      string  `json:"address_verification"`
	SecurityCodeVerification string  `json:"security_code_verification"`
	InstrumentType           string  `json:"instrument_type"`
	Type                     string  `json:"type"`
	Currency                 string  `json:"currency"`
	Identity                 string  `json:"identity"`
}

type authorization struct {
	meta
	Application            string          `json:"application"`
	Amount                 int64           `json:"amount"`
	Tags                   tags            `json:"tags"`
	State                  string          `json:"state"`
	Currency               string          `json:"currency"`
	Transfer               *string         `json:"transfer"`
	Messages               []string        `json:"messages"`
	Raw                    null            `json:"raw"`
	TraceID                string          `json:"trace_id"`
	Source                 string          `json:"source"`
	MerchantIdentity       string          `json:"merchant_identity"`
	ThreeDSRedirectURL     *string         `json:"3ds_redirect_url"`
	IsVoid                 bool            `json:"is_void"`
	VoidState              string          `json:"void_state"`
	ExpiresAt              jsonTime        `json:"expires_at"`
	IdempotencyID          *string         `json:"idempotency_id"`
	AdditionalPurchaseData json.RawMessage `json:"additional_purchase_data,omitempty"`
	merchant               string
}

func (a *authorization) sortValue(field string) sortVal {
	if field == "amount" {
		return sortVal{n: a.Amount}
	}
	return a.meta.sortValue(field)
}

// adjustment holds the fields only dispute adjustment transfers carry.
type adjustment struct {
	AmountRequested          int64 `json:"amount_requested"`
	AdditionalBuyerCharges   null  `json:"additional_buyer_charges"`
	AdditionalHealthcareData null  `json:"additional_healthcare_data"`
	AddressVerification      null  `json:"address_verification"`
	FailureCode              null  `json:"failure_code"`
	FailureMessage           null  `json:"failure_message"`
	SecurityCodeVerification null  `json:"security_code_verification"`
	disputedTransfer         string
	dispute                  string // the dispute whose adjustment this is
}

type transfer struct {
	meta
	Amount                 int64           `json:"amount"`
	Tags                   tags            `json:"tags"`
	State                  string          `json:"state"`
	TraceID                string          `json:"trace_id"`
	Currency               string          `json:"currency"`
	Application            string          `json:"application"`
	Source                 *string         `json:"source"`
	Destination            *string         `json:"destination"`
	ReadyToSettleAt        *jsonTime       `json:"ready_to_settle_at"`
	ExternallyFunded       string          `json:"externally_funded"`
	Fee                    int64           `json:"fee"`
	StatementDescriptor    *string         `json:"statement_descriptor"`
	Type                   string          `json:"type"`
	Subtype                string          `json:"subtype"`
	Messages               []string        `json:"messages"`
	Raw                    null            `json:"raw"`
	IdempotencyID          *string         `json:"idempotency_id"`
	MerchantIdentity       string          `json:"merchant_identity"`
	AdditionalPurchaseData json.RawMessage `json:"additional_purchase_data,omitempty"`
	*adjustment
}

func (t *transfer) sortValue(field string) sortVal {
	if field == "amount" {
		return sortVal{n: t.Amount}
	}
	return t.meta.sortValue(field)
}

type merchant struct {
	meta
	Application                       string           `json:"application"`
	Identity                          string           `json:"identity"`
	Verification                      string           `json:"verification"`
	MerchantProfile                   string           `json:"merchant_profile"`
	Processor                         string           `json:"processor"`
	ProcessingEnabled                 bool             `json:"processing_enabled"`
	SettlementEnabled                 bool             `json:"settlement_enabled"`
	GrossSettlementEnabled            bool             `json:"gross_settlement_enabled"`
	CreatingTransferFromReportEnabled bool             `json:"creating_transfer_from_report_enabled"`
	CardExpirationDateRequired        bool             `json:"card_expiration_date_required"`
	CardCVVRequired                   bool             `json:"card_cvv_required"`
	Tags                              tags             `json:"tags"`
	MCC                               string           `json:"mcc"`
	MID                               string           `json:"mid"`
	MerchantName                      string           `json:"merchant_name"`
	SettlementFundingIdentifier       string           `json:"settlement_funding_identifier"`
	ReadyToSettleUpon                 string           `json:"ready_to_settle_upon"`
	FeeReadyToSettleUpon              string           `json:"fee_ready_to_settle_upon"`
	LevelTwoLevelThreeDataEnabled     bool             `json:"level_two_level_three_data_enabled"`
	OnboardingState                   string           `json:"onboarding_state"`
	ProcessorDetails                  processorDetails `json:"processor_details"`
}

type processorDetails struct {
	MID    string `json:"mid"`
	APIKey string `json:"api_key"`
}

// maskedAPIKey is the only value processor_details.api_key ever takes.
const maskedAPIKey = "<API_KEY>"

type subscriptionSchedule struct {
	meta
	CreatedBy               string         `json:"created_by"`
	LineItemType            string         `json:"line_item_type"`
	Nickname                string         `json:"nickname"`
	SubscriptionType        string         `json:"subscription_type"`
	PeriodOffset            map[string]any `json:"period_offset,omitempty"`
	FixedTimeIntervalOffset map[string]any `json:"fixed_time_interval_offset,omitempty"`
	Tags                    tags           `json:"tags"`
}

type feeAmountData struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Label    string `json:"label"`
}

type subscriptionAmount struct {
	meta
	AmountType           string        `json:"amount_type"`
	CreatedBy            string        `json:"created_by"`
	FeeAmountData        feeAmountData `json:"fee_amount_data"`
	Nickname             string        `json:"nickname"`
	SubscriptionSchedule string        `json:"subscription_schedule"`
	Tags                 tags          `json:"tags"`
	producedByUpdate     bool
	updated              bool
}

type subscriptionEnrollment struct {
	meta
	CreatedBy            string    `json:"created_by"`
	EndedAt              *jsonTime `json:"ended_at"`
	Merchant             string    `json:"merchant"`
	Nickname             string    `json:"nickname"`
	StartedAt            jsonTime  `json:"started_at"`
	SubscriptionSchedule string    `json:"subscription_schedule"`
	Tags                 tags      `json:"tags"`
}

type disputeDetails struct {
	ARN string `json:"arn"`
}

type dispute struct {
	meta
	Application    string         `json:"application"`
	Tags           tags           `json:"tags"`
	Amount         int64          `json:"amount"`
	State          string         `json:"state"`
	Transfer       string         `json:"transfer"`
	Reason         string         `json:"reason"`
	Message        *string        `json:"message"`
	Action         *string        `json:"action"`
	Identity       string         `json:"identity"`
	OccurredAt     jsonTime       `json:"occurred_at"`
	RespondBy      jsonTime       `json:"respond_by"`
	DisputeDetails disputeDetails `json:"dispute_details"`
}

func (d *dispute) sortValue(field string) sortVal {
	if field == "amount" {
		return sortVal{n: d.Amount}
	}
	return d.meta.sortValue(field)
}

type evidence struct {
	meta
	Dispute string `json:"dispute"`
	State   string `json:"state"`
	Tags    tags   `json:"tags"`
}

type balanceTransfer struct {
	meta
	Amount              int64  `json:"amount"`
	Currency            string `json:"currency"`
	Description         string `json:"description"`
	Source              string `json:"source"`
	Destination         string `json:"destination"`
	ExternalReferenceID string `json:"external_reference_id"`
	ReferenceID         string `json:"reference_id"`
	ProcessorType       string `json:"processor_type"`
	State               string `json:"state"`
	Tags                tags   `json:"tags"`
}

func (b *balanceTransfer) sortValue(field string) sortVal {
	if field == "amount" {
		return sortVal{n: b.Amount}
	}
	return b.meta.sortValue(field)
}

type file struct {
	meta
	ApplicationID string  `json:"application_id"`
	DisplayName   string  `json:"display_name"`
	Extension     *string `json:"extension"`
	LinkedTo      string  `json:"linked_to"`
	LinkedType    string  `json:"linked_type"`
	Status        string  `json:"status"`
	Type          string  `json:"type"`
	Tags          tags    `json:"tags"`
	content       []byte
	contentType   string
	// contentRef names content a store keeps apart from the record and
	// streams (contentStore), contentSize its length; content is nil then.
	contentRef  string
	contentSize int64
}

// contentLen is the length of the file's uploaded content.
func (f *file) contentLen() int64 {
	if f.content != nil {
		return int64(len(f.content))
	}
	return f.contentSize
}

// hasContent reports whether the file's content was uploaded.
func (f *file) hasContent() bool { return f.content != nil || f.contentRef != "" }

type externalLink struct {
	meta
	FileID    string   `json:"file_id"`
	Type      string   `json:"type"`
	Duration  int      `json:"duration"`
	ExpiresAt jsonTime `json:"expires_at"`
	Expired   bool     `json:"expired"`
	URL       string   `json:"url"`
	UserID    string   `json:"user_id"`
	Tags      tags     `json:"tags"`
}

// Webhook authentication types that put an Authorization header on deliveries.
const (
	hookAuthBasic  = "BASIC"
	hookAuthBearer = "BEARER"
)

// webhookAuthentication is a webhook's stored authentication (spec §4.9:
// "settings used when sending events"). Its JSON form, in every response and
// event, carries the type and a BASIC username only: the password and the
// bearer token are credentials and are never rendered (see MarshalJSON).
type webhookAuthentication struct {
	Type     string
	username string
	password string // BASIC
	token    string // BEARER
}

// MarshalJSON renders {"type"} and, for BASIC, {"basic":{"username"}}.
func (a webhookAuthentication) MarshalJSON() ([]byte, error) {
	type basic struct {
		Username string `json:"username"`
	}
	out := struct {
		Type  string `json:"type"`
		Basic *basic `json:"basic,omitempty"`
	}{Type: a.Type}
	if a.Type == hookAuthBasic {
		out.Basic = &basic{Username: a.username}
	}
	return json.Marshal(out)
}

// header is the Authorization header a delivery carries ("" for none): BASIC
// sends the username and password, BEARER a non-empty token, NONE nothing.
func (a webhookAuthentication) header() string {
	switch a.Type {
	case hookAuthBasic:
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(a.username+":"+a.password))
	case hookAuthBearer:
		if a.token != "" {
			return "Bearer " + a.token
		}
	}
	return ""
}

type webhook struct {
	meta
	Application             string                `json:"application"`
	URL                     string                `json:"url"`
	Enabled                 bool                  `json:"enabled"`
	EnabledEvents           []any                 `json:"enabled_events"`
	Authentication          webhookAuthentication `json:"authentication"`
	PreviousSecretExpiresAt *jsonTime             `json:"previous_secret_expires_at"`
	SecretSigningKey        string                `json:"secret_signing_key,omitempty"`
	Tags                    tags                  `json:"tags"`
}
