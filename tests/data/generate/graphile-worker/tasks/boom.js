module.exports = async (payload) => { throw new Error(`boom: invoice ${payload.invoice} could not be rendered`); };
