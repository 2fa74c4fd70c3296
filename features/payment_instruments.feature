@payment_instruments @spec-4.3
Feature: Payment instruments (cards)
  Cards are created for an identity and fetched by id. The full card number and the security code
  are accepted on creation and never returned; the address keeps the limits of spec section 8.

  Background:
    Given I am the platform user

  @spec-2.3
  Scenario: a card is created without echoing its number or security code
    §2.3: the full card number and the security code are accepted on creation and are not returned; bin first six, last_four last four.
    When I create a card for the buyer
    Then the request succeeds
    And the response field "id" starts with "PI"
    And the response shows the first six and last four digits of the number
    And the response never contains the card number
    And the response never contains the security code as a value
    And the response field "type" is "PAYMENT_CARD"
    And the response field "instrument_type" is "PAYMENT_CARD"
    And the response field "identity" is "{fixture:buyer_identity}"
    And the response field "name" is "Conform Buyer"
    And the response field "expiration_month" is 12
    And the response field "expiration_year" is 2030
    And the response field "address.postal_code" is "94114"
    And the response field "tags.conform_run" is "{run_id}"
    And the response field "_links.self.href" is an absolute URL
    And the link "self" names the response field "id"
    And the link "identity" names the response field "identity"
    And the response field "brand" is "VISA" (assumed: resource_values)
    And the response carries the declared content type
    And the response fields "created_at" and "updated_at" are equal (assumed: resource_values)

  Scenario: a card fetched by id never shows its number or security code
    §2.3: the full card number and the security code are not returned; bin is the first six digits, last_four the last four.
    Given a card for the buyer
    When I fetch the card
    Then the request succeeds
    And the response field "id" is the card id
    And the response shows the first six and last four digits of the number
    And the response never contains the card number
    And the response never contains the security code as a value

  @assumed @profile-reference_rules
  Scenario: the same card number keeps the same fingerprint
    Given a card for the buyer
    When I create a second card with the same number
    Then the two cards have the same fingerprint

  @assumed @profile-request_rules
  Scenario Outline: a card <with> is refused, though no sentence of the spec refuses it
    When I create a card for the buyer with the field "<field>" set to "<value>"
    Then the request is refused as an invalid field "<pointer>"

    Examples:
      | with                                           | field               | value | pointer              |
      | with a field the body table does not list      | color               | red   | /color               |
      | whose address has a field its table does not list | address.color    | red   | /address/color       |
      | with an empty name                             | name                |       | /name                |
      | with an empty postal code (§8: max 7, no least) | address.postal_code |       | /address/postal_code |

  Scenario: fetching a card that does not exist is refused as not found
    §7: Object does not exist, on fetch, update and delete by id.
    When I fetch a card that does not exist
    Then the request is refused as not found

  @assumed @profile-card_number_check
  Scenario: a card number failing the Luhn check is refused
    When I create a card for the buyer with the number "4895142232120007"
    Then the request is refused as an invalid field "/number"

  Scenario Outline: a card without its <field> is refused
    §4.3 body table: type, name, number, expiration_month, expiration_year, security_code, identity, address required yes; postal_code yes.
    When I create a card for the buyer without the field "<field>"
    Then the request is refused as an invalid field "<pointer>"

    Examples:
      | field               | pointer              |
      | number              | /number              |
      | security_code       | /security_code       |
      | expiration_month    | /expiration_month    |
      | identity            | /identity            |
      | address.postal_code | /address/postal_code |
      | type                | /type                |
      | name                | /name                |
      | expiration_year     | /expiration_year     |
      | address             | /address             |

  Scenario Outline: a card's security code <ok> is accepted and <bad> is refused
    §4.3: security_code: 3-4 digits.
    When I create a card for the buyer whose security code is "<ok>"
    Then the request succeeds
    And the response never contains the security code as a value
    When I create a card for the buyer whose security code is "<bad>"
    Then the request is refused as an invalid field "/security_code"

    Examples:
      | ok   | bad   |
      | 123  | 12    |
      | 1234 | 12345 |
      | 123  | 12a   |

  @spec-8
  Scenario Outline: a card's <field> accepts <ok> characters and refuses <bad>
    §8: card address.line1, line2 max 35 characters, city max 20, postal_code max 7, region 2 letters, country 3 letters.
    When I create a card for the buyer whose "<field>" is <ok> characters long
    Then the request succeeds
    When I create a card for the buyer whose "<field>" is <bad> characters long
    Then the request is refused as an invalid field "<pointer>"

    Examples:
      | field               | ok | bad | pointer              |
      | address.line1       | 35 | 36  | /address/line1       |
      | address.line2       | 35 | 36  | /address/line2       |
      | address.city        | 20 | 21  | /address/city        |
      | address.postal_code | 7  | 8   | /address/postal_code |
      | address.region      | 2  | 3   | /address/region      |
      | address.region      | 2  | 1   | /address/region      |
      | address.country     | 3  | 4   | /address/country     |
      | address.country     | 3  | 2   | /address/country     |

  Scenario Outline: a card number of <kind> is accepted
    When I create a card for the buyer with the number "<number>"
    Then the request succeeds
    And the response shows the first six and last four digits of the number
    And the response never contains the card number

    @assumed @profile-card_number_check
    Examples: assumed: 12 to 19 digits
      | kind      | number              |
      | 12 digits | 489514223218        |
      | 19 digits | 4895142232120006488 |

  Scenario Outline: a card number of <kind> is refused
    §4.3: number: primary account number, digits only.
    When I create a card for the buyer with the number "<number>"
    Then the request is refused as an invalid field "/number"

    Examples: spec 4.3: digits only
      | kind    | number              |
      | letters | 4895A42232120006    |
      | spaces  | 4895 1422 3212 0006 |

    @assumed @profile-card_number_check
    Examples: assumed: 12 to 19 digits passing the Luhn check
      | kind                 | number               |
      | 11 digits            | 48951422327          |
      | 20 digits            | 48951422321200064895 |
      | a failing Luhn check | 4895142232120007     |

  Scenario Outline: a card's expiration year <ok> is accepted and <bad> is refused
    §4.3: expiration_year: 4 digits.
    When I create a card for the buyer whose expiration year is <ok>
    Then the request succeeds
    And the response field "expiration_year" is <ok>
    When I create a card for the buyer whose expiration year is <bad>
    Then the request is refused as an invalid field "/expiration_year"

    Examples:
      | ok   | bad   |
      | 2030 | 30    |
      | 9999 | 10000 |
