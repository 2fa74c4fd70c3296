package validate_test

import (
	"errors"
	"fmt"

	"github.com/conform-kit/conform/validate"
)

func ExampleValidator_Validate() {
	v, err := validate.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	body := []byte(`{
		"source": "PIe2YvpcjvoVJ6PzoRPBK137",
		"merchant": "MUeDVrvgBCcmeEpb4YQ8e6Zb",
		"amount": -100,
		"currency": "usd"
	}`)
	err = v.Validate("transfer_create", body)
	var verr *validate.Error
	if errors.As(err, &verr) {
		for _, viol := range verr.Violations {
			fmt.Printf("%s %s: %s\n", viol.Pointer, viol.Rule, viol.Message)
		}
	}
	// Output:
	// /amount minimum: must be >= 0 but found -100
	// /currency pattern: does not match pattern '^[A-Z]{3}$'
}

func ExampleCheckCapture() {
	fee := int64(50)
	err := validate.CheckCapture(1000, 1200, &fee)
	fmt.Println(err)
	// Output:
	// validate: INVALID_FIELD: /capture_amount: capture_amount 1200 exceeds the authorization amount 1000
}
