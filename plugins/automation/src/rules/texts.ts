/**
 * Fixed texts the bot adds around the tenant's own messages (the tenant writes greetings, out-of-hours,
 * rating, LGPD and farewell texts on its connections, queues and settings). Portuguese (pt-BR), the
 * product's default language; one place to change or translate them.
 */
export const TEXTS = {
  /** Sent before the menu again when the customer's answer is not one of the options. */
  invalidOption: 'Opção inválida. Por favor, escolha uma das opções abaixo.',
  /** Menu line that goes back one level of an option tree (`#`). */
  back: 'Voltar',
  /** Menu line that goes back to the first menu (`0`). */
  start: 'Menu inicial',
  /** Added under the tenant's `ratingMessage`. */
  npsPrompt: 'Responda com uma nota de *0* a *10*.',
  /** Sent when the rating answer is not a number 0 to 10. */
  npsInvalid: 'Nota inválida. Responda apenas com um número de *0* a *10*.',
  /** Default LGPD text when the company sets none. */
  lgpdDefault: 'Para continuar o atendimento, precisamos do seu consentimento para tratar os seus dados pessoais conforme a LGPD (Lei Geral de Proteção de Dados).',
  /** Options under the LGPD text when consent is asked for. */
  lgpdAccept: 'Aceito',
  lgpdRefuse: 'Não aceito',
  /** Sent when the LGPD answer is neither option. */
  lgpdInvalid: 'Resposta inválida. Responda *1* para aceitar ou *2* para não aceitar.',
  /** Sent when the customer refuses the LGPD terms (then the ticket closes). */
  lgpdRefused: 'Tudo bem. Sem o seu consentimento não podemos continuar o atendimento. Se mudar de ideia, é só nos escrever.',
  /** Waiting position; `{n}` is the position (1 = next). */
  queuePosition: 'Você é o número *{n}* na fila. Em breve um atendente falará com você.',
} as const;
