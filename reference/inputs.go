package reference

import "time"

// Decoded request bodies. The validate package has already checked each body
// against its schema, so these only carry values.

type cardCreate struct {
	bodySize
	Type            string  `json:"type"`
	Name            string  `json:"name"`
	Number          string  `json:"number"`
	ExpirationMonth int     `json:"expiration_month"`
	ExpirationYear  int     `json:"expiration_year"`
	SecurityCode    string  `json:"security_code"`
	Identity        string  `json:"identity"`
	Address         address `json:"address"`
	Tags            tags    `json:"tags"`
}

type authorizationCreate struct {
	bodySize
	Source                 string         `json:"source"`
	MerchantIdentity       string         `json:"merchant_identity"`
	Merchant               string         `json:"merchant"`
	Amount                 int64          `json:"amount"`
	Currency               string         `json:"currency"`
	Processor              *string        `json:"processor"`
	Tags                   tags           `json:"tags"`
	IdempotencyID          *string        `json:"idempotency_id"`
	AdditionalPurchaseData map[string]any `json:"additional_purchase_data"`
}

type captureRequest struct {
	bodySize
	CaptureAmount          int64          `json:"capture_amount"`
	Fee                    *int64         `json:"fee"`
	AdditionalPurchaseData map[string]any `json:"additional_purchase_data"`
}

type transferCreate struct {
	bodySize
	Source                 string         `json:"source"`
	Merchant               string         `json:"merchant"`
	Amount                 int64          `json:"amount"`
	Fee                    *int64         `json:"fee"`
	Currency               string         `json:"currency"`
	IdempotencyID          *string        `json:"idempotency_id"`
	Tags                   tags           `json:"tags"`
	AdditionalPurchaseData map[string]any `json:"additional_purchase_data"`
}

type merchantUpdate struct {
	LevelTwoLevelThreeDataEnabled *bool `json:"level_two_level_three_data_enabled"`
	Tags                          tags  `json:"tags"`
}

type scheduleCreate struct {
	bodySize
	LineItemType            string         `json:"line_item_type"`
	Nickname                string         `json:"nickname"`
	SubscriptionType        string         `json:"subscription_type"`
	PeriodOffset            map[string]any `json:"period_offset"`
	FixedTimeIntervalOffset map[string]any `json:"fixed_time_interval_offset"`
	Tags                    tags           `json:"tags"`
}

// amountBody is the create and update body of a subscription amount; amount
// may sit inside fee_amount_data (the spec's table) or at the top level (its example).
type amountBody struct {
	bodySize
	AmountType    string `json:"amount_type"`
	FeeAmountData *struct {
		Amount   *int64  `json:"amount"`
		Currency *string `json:"currency"`
		Label    *string `json:"label"`
	} `json:"fee_amount_data"`
	Amount   *int64  `json:"amount"`
	Nickname *string `json:"nickname"`
	Tags     tags    `json:"tags"`
}

type enrollmentBody struct {
	bodySize
	Merchant  string  `json:"merchant"`
	Nickname  *string `json:"nickname"`
	StartedAt *string `json:"started_at"`
	EndedAt   *string `json:"ended_at"`
	Tags      tags    `json:"tags"`
}

type balanceTransferCreate struct {
	bodySize
	Amount              int64  `json:"amount"`
	Currency            string `json:"currency"`
	Description         string `json:"description"`
	Source              string `json:"source"`
	Destination         string `json:"destination"`
	ProcessorType       string `json:"processor_type"`
	ExternalReferenceID string `json:"external_reference_id"`
	Tags                tags   `json:"tags"`
}

type fileCreate struct {
	bodySize
	DisplayName string `json:"display_name"`
	LinkedTo    string `json:"linked_to"`
	LinkedType  string `json:"linked_type"`
	Type        string `json:"type"`
	Tags        tags   `json:"tags"`
}

type externalLinkCreate struct {
	bodySize
	Type     string `json:"type"`
	Duration *int   `json:"duration"`
	Tags     tags   `json:"tags"`
}

type webhookBody struct {
	bodySize
	URL            *string          `json:"url"`
	Enabled        *bool            `json:"enabled"`
	EnabledEvents  []any            `json:"enabled_events"`
	Authentication *webhookAuthBody `json:"authentication"`
	Tags           tags             `json:"tags"`
}

// webhookAuthBody is the request form of a webhook's authentication.
type webhookAuthBody struct {
	Type  string `json:"type"`
	Basic *struct {
		Username string `json:"username"`
		Password string `json:"password"`
	} `json:"basic"`
	Bearer *struct {
		Token string `json:"token"`
	} `json:"bearer"`
}

// stored is the authentication a webhook keeps: the whole object replaces
// the previous one, credentials included.
func (b webhookAuthBody) stored() webhookAuthentication {
	a := webhookAuthentication{Type: b.Type}
	if b.Basic != nil {
		a.username, a.password = b.Basic.Username, b.Basic.Password
	}
	if b.Bearer != nil {
		a.token = b.Bearer.Token
	}
	return a
}

// parseTimestamp reads an RFC 3339 timestamp of a request body field.
func parseTimestamp(pointer string, v *string) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *v)
	if err != nil {
		return nil, errInvalidField(pointer, "must be an RFC 3339 timestamp")
	}
	t = t.UTC()
	return &t, nil
}

// tagged is an input body that carries tags (checked against Limits.Tags).
type tagged interface{ tagList() tags }

func (in *cardCreate) tagList() tags            { return in.Tags }
func (in *authorizationCreate) tagList() tags   { return in.Tags }
func (in *transferCreate) tagList() tags        { return in.Tags }
func (in *merchantUpdate) tagList() tags        { return in.Tags }
func (in *scheduleCreate) tagList() tags        { return in.Tags }
func (in *amountBody) tagList() tags            { return in.Tags }
func (in *enrollmentBody) tagList() tags        { return in.Tags }
func (in *balanceTransferCreate) tagList() tags { return in.Tags }
func (in *fileCreate) tagList() tags            { return in.Tags }
func (in *externalLinkCreate) tagList() tags    { return in.Tags }
func (in *webhookBody) tagList() tags           { return in.Tags }

// bodySize is embedded in every input body: the size of the JSON it was
// decoded from, for the retention's memory estimate.
type bodySize struct{ size int }

func (b *bodySize) setSize(n int) { b.size = n }

// sized is an input body that records its size.
type sized interface{ setSize(n int) }
