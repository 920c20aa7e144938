/**
 * Reserved words DynamoDB refuses as bare attribute names in expressions (case-insensitive):
 * a PARTIAL list of the ~570 in the Developer Guide ("Reserved words in DynamoDB"), chosen as
 * the words a handler is likely to use as an attribute name. A word missing here is accepted by
 * the simulator and refused by DynamoDB; a word listed here is refused by both — the
 * conformance suite checks every entry against DynamoDB Local and MiniStack. (`SIZE` is on
 * the Guide's list, but both accept it as a name in a path, so it is left out.)
 *
 * @example
 * ```ts
 * RESERVED_WORDS.has('STATUS') // => true
 * ```
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set(
  `ACTION ADD ALL AND ANY AS ASC ATTRIBUTE BETWEEN BINARY BOOLEAN BY CAPACITY CASE CHAR CHECK
  COLUMN COMMENT CONDITION CONNECTION COUNT COUNTER CREATE CURRENT DATA DATE DATETIME DAY
  DECIMAL DEFAULT DELETE DESC DESCRIBE DOUBLE DROP DURATION ELEMENT ELSE EMPTY END ERROR EXISTS
  FALSE FILE FILTER FIRST FLOAT FOR FORMAT FROM FUNCTION GROUP HASH HOUR IF IN INDEX INSERT INT
  INTEGER INTO IS ITEM ITEMS KEY KEYS LAST LEVEL LIMIT LIST LOCAL LOCATION MAP MINUTE MONTH NAME
  NAMES NO NOT NULL NUMBER OBJECT OF ON OPTION OR ORDER OWNER PARTITION PATH PERCENT PRIMARY
  PUBLIC RANGE RAW READ REGION RENAME RETURN ROLE ROW ROWS SECOND SELECT SESSION SET SOURCE
  STATE STATUS STRING SUM TABLE TEMPORARY TEXT TIME TIMESTAMP TO TOKEN TOTAL TRUE TTL TYPE UNION
  UNIQUE UNKNOWN UPDATE USAGE USER USERS UUID VALUE VALUES VIEW WHEN WHERE WITH WRITE YEAR ZONE`
    .split(/\s+/)
    .filter((word) => word !== ''),
);

/**
 * Whether a bare name in an expression is one of {@link RESERVED_WORDS}.
 *
 * @example
 * ```ts
 * isReservedWord('status') // => true
 * ```
 */
export function isReservedWord(name: string): boolean {
  return RESERVED_WORDS.has(name.toUpperCase());
}

/**
 * Words DynamoDB Local's lexer reads as grammar, so a bare one in a path is a syntax error
 * rather than a reserved word (MiniStack calls ADD, DELETE and SET reserved and accepts REMOVE).
 *
 * @example
 * ```ts
 * SYNTAX_KEYWORDS.has('AND') // => true
 * ```
 */
export const SYNTAX_KEYWORDS: ReadonlySet<string> = new Set([
  'AND',
  'OR',
  'NOT',
  'BETWEEN',
  'IN',
  'SET',
  'ADD',
  'DELETE',
  'REMOVE',
]);

/**
 * Whether a bare name in a path is one of {@link SYNTAX_KEYWORDS}.
 *
 * @example
 * ```ts
 * isSyntaxKeyword('set') // => true
 * ```
 */
export function isSyntaxKeyword(name: string): boolean {
  return SYNTAX_KEYWORDS.has(name.toUpperCase());
}
