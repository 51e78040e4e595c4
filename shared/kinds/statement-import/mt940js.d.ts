// Types for mt940js 1.3.5 (the package ships none): only what mt940.ts reads.
declare module 'mt940js' {
  export interface Mt940Transaction {
    date: Date;
    entryDate: Date | '';
    amount: number;
    isReversal: boolean;
    transactionType: string;
    reference: string;
    bankReference: string;
    extraDetails: string;
    currency: string;
    details: string;
    structuredDetails?: Record<string, string>;
  }
  export interface Mt940Statement {
    transactionReference: string;
    accountIdentification: string;
    number: { statement: string; sequence: string; section: string };
    openingBalanceDate: Date;
    closingBalanceDate: Date;
    currency: string;
    openingBalance: number;
    closingBalance: number;
    transactions: Mt940Transaction[];
  }
  export class Parser {
    constructor(options?: { no86Structure?: boolean });
    parse(data: string, withTags?: boolean): Mt940Statement[];
  }
  const mt940js: { Parser: typeof Parser };
  export default mt940js;
}
