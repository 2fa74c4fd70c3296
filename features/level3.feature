@level3 @spec-2.13
Feature: Level 2 and Level 3 purchase data
  Authorizations, captures and sales carry additional_purchase_data for merchants enabled for it.
  Create and sale require more fields than capture, and the two sides have different item limits.

  Background:
    Given I am the platform user
    And a card for the buyer

  Scenario: an authorization with Level 3 data is captured without it and the data carries over
    §4.1: data equal to the original Authorization's is not sent on the capture, because the service carries it over.
    Given an authorization of 1000 cents with Level 3 data
    When I capture 1000 cents
    Then the request succeeds
    And the response field "state" is "SUCCEEDED"
    And the response field "additional_purchase_data.customer_reference_number" is "CONFORM-REF-1" (assumed: resource_values)

  Scenario: a capture may send different Level 3 data
    §4.1: a capture's body may carry additional_purchase_data (§2.13: every field optional on capture).
    Given an authorization of 1000 cents with Level 3 data
    When I capture 1000 cents with different Level 3 data
    Then the request succeeds
    And the response field "transfer" starts with "TR"
    And the response field "additional_purchase_data.customer_reference_number" is "CAPTURE-REF-2" (assumed: resource_values)

  @spec-4.2
  Scenario: a sale carries Level 3 line items
    §4.2: a sale's body may carry additional_purchase_data (§2.13), item_data among it.
    When I create a sale of 1000 cents with Level 3 items
    Then the request succeeds
    And the response field "state" is "PENDING"
    And the response field "additional_purchase_data.item_data.0.commodity_code" is "43211" (assumed: resource_values)

  @assumed @profile-reference_rules
  Scenario: the sales tax is computed from the itemized amounts when it is omitted
    When I create a sale of 1000 cents with Level 3 items and no sales tax
    Then the request succeeds
    And the response field "additional_purchase_data.sales_tax" is 100

  Scenario: a tax exempt sale with a sales tax of 0 is accepted
    §2.13: for a non-taxable purchase, send sales_tax as 0 (or omit it) and set tax_exempt to true.
    When I create a tax exempt sale of 1000 cents with a sales tax of 0 cents
    Then the request succeeds

  @assumed @profile-reference_rules
  Scenario: a tax exempt sale with a positive sales tax is refused
    When I create a tax exempt sale of 1000 cents with a sales tax of 50 cents
    Then the request is refused as an invalid field "/additional_purchase_data/sales_tax"

  @spec-7 @spec-4.4 @spec-4.1 @merchants
  Scenario: Level 2/3 data is refused before the merchant is enabled and accepted after
    §1, §7: a merchant must be enabled for Level 2/Level 3 before such data is used; §4.4: true enables it.
    Given the plain merchant is not enabled for Level 2/3 data
    When I create a sale with Level 3 data for the plain merchant
    Then the request is refused as unprocessable
    When I authorize 1000 cents with Level 3 data for the plain merchant
    Then the request is refused as unprocessable
    When I enable the plain merchant for Level 2/3 data
    Then the request succeeds
    And the response field "level_two_level_three_data_enabled" is true
    When I create a sale with Level 3 data for the plain merchant
    Then the request succeeds
    When I authorize 1000 cents with Level 3 data for the plain merchant
    Then the request succeeds

  Scenario Outline: <flow> Level 3 data without its required <field> is refused
    §2.13: the Create authorization / sale column: required (the columns apply to the elements and objects supplied).
    When I create a <flow> with Level 3 data without the field "<field>"
    Then the request is refused as an invalid field "/additional_purchase_data/<pointer>"

    Examples: sales
      | flow | field                                  | pointer                                |
      | sale | customer_reference_number              | customer_reference_number              |
      | sale | customs_duty_amount                    | customs_duty_amount                    |
      | sale | discount_amount                        | discount_amount                        |
      | sale | shipping_amount                        | shipping_amount                        |
      | sale | order_date.day                         | order_date/day                         |
      | sale | item_data.0.commodity_code             | item_data/0/commodity_code             |
      | sale | item_data.0.quantity                   | item_data/0/quantity                   |
      | sale | item_data.0.amount_including_sales_tax | item_data/0/amount_including_sales_tax |

    Examples: authorizations
      | flow          | field                       | pointer                     |
      | authorization | customer_reference_number   | customer_reference_number   |
      | authorization | shipping_amount             | shipping_amount             |
      | authorization | order_date.year             | order_date/year             |
      | authorization | item_data.0.unit_of_measure | item_data/0/unit_of_measure |

  @spec-4.1
  Scenario Outline: capture Level 3 data may leave out <field>
    §2.13: the Capture column: optional.
    Given an authorization of 1000 cents with Level 3 data
    When I capture 1000 cents with Level 3 data without the field "<field>"
    Then the request succeeds
    And the response field "transfer" starts with "TR"

    Examples:
      | field                       |
      | customer_reference_number   |
      | customs_duty_amount         |
      | order_date.day              |
      | item_data.0.commodity_code  |
      | item_data.0.quantity        |

  @spec-4.1
  Scenario: capture Level 3 items still need their description
    §2.13: item_description on capture: required when item_data is supplied.
    Given an authorization of 1000 cents with Level 3 data
    When I capture 1000 cents with Level 3 data without the field "item_data.0.item_description"
    Then the request is refused as an invalid field "/additional_purchase_data/item_data/0/item_description"
    And the authorization is still uncaptured

  @spec-8
  Scenario Outline: <flow> Level 3 data accepts a <field> of <ok> characters and refuses <over>
    §2.13, §8: each field's length, e.g. customer_reference_number max 17; item_description 25, unit_of_measure 3 on create/sale.
    When I create a <flow> with Level 3 data where "<field>" is <ok> characters long
    Then the request succeeds
    When I create a <flow> with Level 3 data where "<field>" is <over> characters long
    Then the request is refused as an invalid field "/additional_purchase_data/<pointer>"

    Examples: sales
      | flow | field                             | ok | over | pointer                           |
      | sale | customer_reference_number         | 17 | 18   | customer_reference_number         |
      | sale | invoice_reference_number          | 15 | 16   | invoice_reference_number          |
      | sale | destination_postal_code           | 10 | 11   | destination_postal_code           |
      | sale | ship_from_postal_code             | 10 | 11   | ship_from_postal_code             |
      | sale | item_data.0.commodity_code        | 11 | 13   | item_data/0/commodity_code        |
      | sale | item_data.0.merchant_product_code | 12 | 13   | item_data/0/merchant_product_code |
      | sale | item_data.0.item_description      | 25 | 26   | item_data/0/item_description      |
      | sale | item_data.0.unit_of_measure       | 3  | 4    | item_data/0/unit_of_measure       |

    Examples: authorizations
      | flow          | field                             | ok | over | pointer                           |
      | authorization | customer_reference_number         | 17 | 18   | customer_reference_number         |
      | authorization | invoice_reference_number          | 15 | 16   | invoice_reference_number          |
      | authorization | destination_postal_code           | 10 | 11   | destination_postal_code           |
      | authorization | ship_from_postal_code             | 10 | 11   | ship_from_postal_code             |
      | authorization | item_data.0.commodity_code        | 11 | 13   | item_data/0/commodity_code        |
      | authorization | item_data.0.merchant_product_code | 12 | 13   | item_data/0/merchant_product_code |
      | authorization | item_data.0.item_description      | 25 | 26   | item_data/0/item_description      |
      | authorization | item_data.0.unit_of_measure       | 3  | 4    | item_data/0/unit_of_measure       |

  @spec-8
  Scenario Outline: <flow> Level 3 data accepts a <field> of <ok> and refuses <bad>
    §8: item_data.quantity greater than 0; order_date day 1-31, month 1-12, year 4 digits.
    When I create a <flow> with Level 3 data where "<field>" is <ok>
    Then the request succeeds
    When I create a <flow> with Level 3 data where "<field>" is <bad>
    Then the request is refused as an invalid field "/additional_purchase_data/<pointer>"

    Examples: sales
      | flow | field                  | ok   | bad   | pointer               |
      | sale | item_data.0.quantity   | 1    | 0     | item_data/0/quantity  |
      | sale | order_date.day         | 31   | 32    | order_date/day        |
      | sale | order_date.day         | 1    | 0     | order_date/day        |
      | sale | order_date.month       | 12   | 13    | order_date/month      |
      | sale | order_date.month       | 1    | 0     | order_date/month      |
      | sale | order_date.year        | 2025 | 999   | order_date/year       |
      | sale | order_date.year        | 9999 | 10000 | order_date/year       |

    Examples: authorizations
      | flow          | field                | ok   | bad   | pointer              |
      | authorization | item_data.0.quantity | 1    | 0     | item_data/0/quantity |
      | authorization | order_date.day       | 31   | 32    | order_date/day       |
      | authorization | order_date.day       | 1    | 0     | order_date/day       |
      | authorization | order_date.month     | 12   | 13    | order_date/month     |
      | authorization | order_date.month     | 1    | 0     | order_date/month     |
      | authorization | order_date.year      | 1000 | 999   | order_date/year      |

  @spec-8 @spec-4.1
  Scenario Outline: capture Level 3 data accepts a <field> of <ok> characters and refuses <over>
    §2.13, §8: each field's length on capture, e.g. item_description 26, unit_of_measure 12, customer_reference_number max 17.
    Given an authorization of 1000 cents with Level 3 data
    When I capture 1000 cents with Level 3 data where "<field>" is <over> characters long
    Then the request is refused as an invalid field "/additional_purchase_data/<pointer>"
    And the authorization is still uncaptured
    When I capture 1000 cents with Level 3 data where "<field>" is <ok> characters long
    Then the request succeeds

    Examples:
      | field                             | ok | over | pointer                           |
      | item_data.0.item_description      | 26 | 27   | item_data/0/item_description      |
      | item_data.0.unit_of_measure       | 12 | 13   | item_data/0/unit_of_measure       |
      | customer_reference_number         | 17 | 18   | customer_reference_number         |
      | invoice_reference_number          | 15 | 16   | invoice_reference_number          |
      | destination_postal_code           | 10 | 11   | destination_postal_code           |
      | ship_from_postal_code             | 10 | 11   | ship_from_postal_code             |
      | item_data.0.merchant_product_code | 12 | 13   | item_data/0/merchant_product_code |
      | item_data.0.commodity_code        | 11 | 13   | item_data/0/commodity_code        |

  @spec-8 @spec-4.1
  Scenario Outline: capture Level 3 data accepts a <field> of <ok> and refuses <bad>
    §8: item_data.quantity greater than 0; order_date day 1-31, month 1-12, year 4 digits.
    Given an authorization of 1000 cents with Level 3 data
    When I capture 1000 cents with Level 3 data where "<field>" is <bad>
    Then the request is refused as an invalid field "/additional_purchase_data/<pointer>"
    When I capture 1000 cents with Level 3 data where "<field>" is <ok>
    Then the request succeeds

    Examples:
      | field                | ok   | bad   | pointer              |
      | item_data.0.quantity | 1    | 0     | item_data/0/quantity |
      | order_date.day       | 31   | 32    | order_date/day       |
      | order_date.day       | 1    | 0     | order_date/day       |
      | order_date.month     | 12   | 13    | order_date/month     |
      | order_date.month     | 1    | 0     | order_date/month     |
      | order_date.year      | 9999 | 10000 | order_date/year      |
