package steps

import (
	"context"
	"fmt"
	"strings"

	"github.com/conform-kit/conform/validate/judging"
)

// testCardNumber is a Luhn-valid VISA test number; testSecurityCode its code.
const (
	testCardNumber   = "4895142232120006"
	testSecurityCode = "7391"
)

// paymentInstrumentSteps is the vocabulary of payment_instruments.feature: cards.
func paymentInstrumentSteps() []stepDef {
	return []stepDef{
		step(`a card for the buyer`, func(s *scenario) any { return s.aCard }),
		step(`I create a card for the buyer`, func(s *scenario) any { return s.createCard }),
		step(`I create a card for the buyer with the number "([^"]*)"`, func(s *scenario) any { return s.createCardNumber }),
		step(`I create a card for the buyer without the field "([^"]*)"`, func(s *scenario) any { return s.createCardWithout }),
		step(`I create a card for the buyer whose "([^"]*)" is (\d+) characters long`, func(s *scenario) any { return s.createCardLength }),
		step(`I create a card for the buyer with the field "([^"]*)" set to "([^"]*)"`, func(s *scenario) any { return s.createCardWith }),
		step(`I create a card for the buyer whose security code is "([^"]*)"`, func(s *scenario) any { return s.createCardCode }),
		step(`I create a card for the buyer whose expiration year is (\d+)`, func(s *scenario) any { return s.createCardYear }),
		step(`I create a second card with the same number`, func(s *scenario) any { return s.createSecondCard }),
		step(`I fetch the card`, func(s *scenario) any { return s.fetchCard }),
		step(`I fetch a card that does not exist`, func(s *scenario) any { return s.fetchMissingCard }),
		step(`the response shows the first six and last four digits of the number`, func(s *scenario) any { return s.showsBinLastFour }),
		step(`the response never contains the security code as a value`, func(s *scenario) any { return s.neverSecurityCode }),
		step(`the two cards have the same fingerprint`, func(s *scenario) any { return s.sameFingerprint }),
	}
}

// cardBody is a payment card creation body for identity.
func (s *scenario) cardBody(identity, number string) map[string]any {
	s.sent["card number"], s.sent["security code"] = number, testSecurityCode
	s.secrets = appendSecret(s.secrets, number)
	return map[string]any{
		"type": "PAYMENT_CARD", "name": "Conform Buyer", "number": number,
		"expiration_month": 12, "expiration_year": 2030, "security_code": testSecurityCode,
		"identity": identity,
		"address": map[string]any{
			"line1": "741 Douglass St", "line2": "Apt 8", "city": "San Mateo",
			"region": "CA", "postal_code": "94114", "country": "USA",
		},
		"tags": s.runTags(),
	}
}

func (s *scenario) newCard(number string) (map[string]any, error) {
	identity, err := s.needFixture("buyer_identity")
	if err != nil {
		return nil, err
	}
	return s.cardBody(identity, number), nil
}

func (s *scenario) aCard(ctx context.Context) error {
	body, err := s.newCard(testCardNumber)
	if err != nil {
		return err
	}
	return s.given(ctx, "card", "POST", "/payment_instruments", body)
}

func (s *scenario) createCard(ctx context.Context) error {
	return s.createCardNumber(ctx, testCardNumber)
}

func (s *scenario) createCardNumber(ctx context.Context, number string) error {
	body, err := s.newCard(number)
	if err != nil {
		return err
	}
	_, err = s.create(ctx, "card", "POST", "/payment_instruments", body)
	return err
}

func (s *scenario) createCardWithout(ctx context.Context, field string) error {
	body, err := s.newCard(testCardNumber)
	if err != nil {
		return err
	}
	deletePath(body, field)
	_, err = s.create(ctx, "card", "POST", "/payment_instruments", body)
	return err
}

// createCardWith creates a card whose dotted field is set to a string,
// a field of the body table or one it does not list.
func (s *scenario) createCardWith(ctx context.Context, field, value string) error {
	body, err := s.newCard(testCardNumber)
	if err != nil {
		return err
	}
	setPath(body, field, value)
	_, err = s.create(ctx, "card", "POST", "/payment_instruments", body)
	return err
}

func (s *scenario) createCardLength(ctx context.Context, field string, n int) error {
	body, err := s.newCard(testCardNumber)
	if err != nil {
		return err
	}
	setPath(body, field, filler(field, n))
	_, err = s.create(ctx, "card", "POST", "/payment_instruments", body)
	return err
}

// createCardCode creates a card with the given security code (§4.3: 3-4 digits).
func (s *scenario) createCardCode(ctx context.Context, code string) error {
	body, err := s.newCard(testCardNumber)
	if err != nil {
		return err
	}
	body["security_code"], s.sent["security code"] = code, code
	_, err = s.create(ctx, "card", "POST", "/payment_instruments", body)
	return err
}

// createCardYear creates a card expiring in December of year (§4.3: 4 digits).
func (s *scenario) createCardYear(ctx context.Context, year int) error {
	body, err := s.newCard(testCardNumber)
	if err != nil {
		return err
	}
	body["expiration_year"] = year
	_, err = s.create(ctx, "card", "POST", "/payment_instruments", body)
	return err
}

func (s *scenario) createSecondCard(ctx context.Context) error {
	body, err := s.newCard(testCardNumber)
	if err != nil {
		return err
	}
	return s.given(ctx, "second card", "POST", "/payment_instruments", body)
}

func (s *scenario) fetchCard(ctx context.Context) error {
	return s.fetch(ctx, "card", "/payment_instruments")
}

func (s *scenario) fetchMissingCard(ctx context.Context) error {
	_, err := s.send(ctx, "GET", "/payment_instruments/"+placeholderID("card"), nil, s.user)
	return err
}

func (s *scenario) showsBinLastFour() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	number := s.sent["card number"]
	bin, _ := lookupString(ex.doc, "bin")
	last, _ := lookupString(ex.doc, "last_four")
	if bin != number[:6] || last != number[len(number)-4:] {
		// Normative wherever it is read: once a card is accepted, whatever
		// its number's length, §2.3 fixes its bin and last_four.
		return s.normative([]string{"2.3"}, s.failf(ex, "bin %q last_four %q, want the first six and last four digits of the number sent", bin, last))
	}
	return nil
}

// neverSecurityCode: no key security_code and no string value equal to the code.
func (s *scenario) neverSecurityCode() error {
	ex, err := s.lastExchange()
	if err != nil {
		return err
	}
	if _, ok := lookup(ex.doc, "security_code"); ok || strings.Contains(string(ex.body), `"`+testSecurityCode+`"`) {
		return s.invariant("secrets", s.failf(ex, "the response carries the security code that was sent"))
	}
	return nil
}

func (s *scenario) sameFingerprint() error {
	a, _ := lookupString(s.docs["card"], "fingerprint")
	b, _ := lookupString(s.docs["second card"], "fingerprint")
	if a == "" || a != b {
		return s.assume(keyReferenceRules, "one fingerprint", a+" and "+b, map[string]any{keyReferenceRules: judging.Unchecked},
			fmt.Errorf("fingerprints %q and %q differ for the same card number (assumed: stable per number)", a, b))
	}
	return nil
}
